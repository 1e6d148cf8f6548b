// A player's name over its head: a sprite (always facing the camera) with a canvas
// texture drawn once per name and colour, and disposed with it.
import { useEffect, useMemo, type ReactNode } from 'react';
import { CanvasTexture, SRGBColorSpace } from 'three';
import { PLAYER_HALF_HEIGHT, PLAYER_RADIUS } from '../shared/systems.ts';

const WIDTH = 256;
const HEIGHT = 64;

function drawTag(name: string, colour: string): CanvasTexture {
  const canvas = document.createElement('canvas');
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  const g = canvas.getContext('2d')!;
  g.font = '700 40px system-ui, sans-serif';
  const w = Math.min(WIDTH - 8, g.measureText(name).width + 28);
  g.fillStyle = 'rgba(0, 0, 0, 0.55)';
  g.beginPath();
  g.roundRect((WIDTH - w) / 2, 6, w, HEIGHT - 12, 14);
  g.fill();
  g.fillStyle = colour;
  g.fillRect((WIDTH - w) / 2 + 10, HEIGHT / 2 - 6, 10, 12);
  g.fillStyle = '#ffffff';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(name, WIDTH / 2 + 8, HEIGHT / 2 + 1, WIDTH - 40);
  const texture = new CanvasTexture(canvas);
  texture.colorSpace = SRGBColorSpace;
  return texture;
}

export function NameTag({ name, colour }: { name: string; colour: string }): ReactNode {
  const texture = useMemo(() => drawTag(name, colour), [name, colour]);
  useEffect(() => () => texture.dispose(), [texture]);
  return (
    <sprite position-y={PLAYER_HALF_HEIGHT + PLAYER_RADIUS + 0.45} scale={[2.4, 0.6, 1]}>
      <spriteMaterial map={texture} depthWrite={false} transparent />
    </sprite>
  );
}
