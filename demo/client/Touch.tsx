// Touch controls for phones and tablets (a coarse pointer, or `?touch` in the URL): a
// virtual stick bottom left writes the `move` axis, buttons bottom right press jump,
// throw, kick and ball. The stick is an input binding like the keyboard's (sampled once
// per predicted tick, after the keys, and only while a finger holds it); the buttons
// call client.input.press, so a tap between two ticks is never lost.
import { useRef, useState, type PointerEvent as ReactPointerEvent, type ReactNode } from 'react';
import type { InputBinding } from 'react-netcode/react';
import { useNetcode } from './netcode.ts';

const stick = { active: false, x: 0, y: 0 };
const RADIUS = 48; // px the knob travels

/** The stick's axis as an input binding: bound after keyboardAxes, it overrides `move` while held. */
export const touchStick: InputBinding = {
  describe: 'touch stick → move',
  bind: () => ({
    sample(input) {
      if (stick.active) input.move = { x: stick.x, y: stick.y };
    },
    dispose() {
      stick.active = false;
    },
  }),
};

export const touchWanted = (): boolean =>
  typeof window !== 'undefined' && (new URLSearchParams(window.location.search).has('touch') || window.matchMedia?.('(pointer: coarse)').matches === true);

function Stick(): ReactNode {
  const [knob, setKnob] = useState({ x: 0, y: 0 });
  const origin = useRef<{ x: number; y: number; id: number } | null>(null);
  const move = (e: ReactPointerEvent): void => {
    const o = origin.current;
    if (o === null || e.pointerId !== o.id) return;
    let dx = e.clientX - o.x;
    let dy = e.clientY - o.y;
    const d = Math.hypot(dx, dy);
    if (d > RADIUS) {
      dx = (dx / d) * RADIUS;
      dy = (dy / d) * RADIUS;
    }
    stick.x = dx / RADIUS;
    stick.y = -dy / RADIUS; // screen down = move back (towards the camera)
    setKnob({ x: dx, y: dy });
  };
  const end = (): void => {
    origin.current = null;
    stick.active = false;
    stick.x = stick.y = 0;
    setKnob({ x: 0, y: 0 });
  };
  return (
    <div
      data-testid="touch-stick"
      style={stickBase}
      onPointerDown={(e) => {
        e.stopPropagation();
        const r = e.currentTarget.getBoundingClientRect();
        origin.current = { x: r.left + r.width / 2, y: r.top + r.height / 2, id: e.pointerId };
        e.currentTarget.setPointerCapture(e.pointerId);
        stick.active = true;
        move(e);
      }}
      onPointerMove={move}
      onPointerUp={end}
      onPointerCancel={end}
    >
      <div style={{ ...knobStyle, transform: `translate(${knob.x}px, ${knob.y}px)` }} />
    </div>
  );
}

const BUTTONS = [
  { field: 'jump', label: 'Jump' },
  { field: 'fire', label: 'Throw' },
  { field: 'kick', label: 'Kick' },
  { field: 'spawnBall', label: 'Ball' },
] as const;

export function TouchControls(): ReactNode {
  const { client } = useNetcode();
  return (
    <>
      <Stick />
      <div style={buttonGrid}>
        {BUTTONS.map((b) => (
          <button
            key={b.field}
            type="button"
            style={touchButton}
            onPointerDown={(e) => {
              e.stopPropagation();
              client.input.press(b.field);
            }}
          >
            {b.label}
          </button>
        ))}
      </div>
    </>
  );
}

const stickBase = {
  position: 'absolute', left: 24, bottom: 24, width: 2 * RADIUS + 40, height: 2 * RADIUS + 40, borderRadius: '50%', zIndex: 13,
  background: 'rgba(255,255,255,0.12)', border: '2px solid rgba(255,255,255,0.35)', display: 'flex', alignItems: 'center', justifyContent: 'center', touchAction: 'none',
} as const;
const knobStyle = { width: 48, height: 48, borderRadius: '50%', background: 'rgba(255,255,255,0.6)', pointerEvents: 'none' } as const;
const buttonGrid = { position: 'absolute', right: 16, bottom: 20, zIndex: 13, display: 'grid', gridTemplateColumns: 'repeat(2, 64px)', gap: 10, touchAction: 'none' } as const;
const touchButton = { width: 64, height: 64, borderRadius: '50%', border: '2px solid rgba(255,255,255,0.5)', background: 'rgba(0,0,0,0.45)', color: '#fff', font: '600 13px system-ui, sans-serif' } as const;
