// React side of the harness: a hook that owns a LoopbackScene for a component's
// lifetime, the split-view layout, a Canvas preset and <Probe>, which publishes
// where a ghost is drawn (page coordinates) for the pixel check in the test. In
// deterministic mode (frameloop-react.tsx) the scene and every StoryCanvas run on the
// page's FixedFrameLoop.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { Vector3, type Group } from 'three';
import type { Ghost, NetServer, Protocol } from 'react-netcode';
import type { FixedFrameLoop } from './frameloop.ts';
import { useFrameLoop } from './frameloop-react.tsx';
import { createLoopbackScene, type LoopbackScene, type SceneOptions } from './scene.ts';
import { resetStoryState, storyState } from './story-state.ts';

/** Create the scene after mount (on the page's frame loop in deterministic mode), dispose it on unmount. `null` during the first render. */
export function useLoopbackScene<P extends Protocol>(options: () => SceneOptions<P>): LoopbackScene<P> | null {
  const [scene, setScene] = useState<LoopbackScene<P> | null>(null);
  const make = useRef(options);
  const loop = useFrameLoop();
  useEffect(() => {
    resetStoryState();
    const next = createLoopbackScene(make.current(), loop);
    setScene(next);
    return () => next.dispose();
  }, [loop]);
  return scene;
}

export function SplitView({ children, description }: { children: ReactNode; description: ReactNode }): ReactNode {
  return (
    <div style={{ display: 'flex', flexDirection: 'column', height: '100%', fontFamily: 'system-ui, sans-serif', fontSize: 13, background: '#1e1e24', color: '#eee' }}>
      <div style={{ padding: '6px 10px', lineHeight: 1.4 }}>{description}</div>
      <div style={{ display: 'flex', flex: 1, gap: 4, minHeight: 0, padding: 4 }}>{children}</div>
    </div>
  );
}

export function Panel({ title, caption, children }: { title: string; caption?: ReactNode; children: ReactNode }): ReactNode {
  return (
    <div style={{ flex: 1, display: 'flex', flexDirection: 'column', minWidth: 0, border: '1px solid #444' }}>
      <div style={{ padding: '4px 8px', fontWeight: 600, background: '#2b2b33' }}>{title}</div>
      <div style={{ flex: 1, position: 'relative', minHeight: 200 }}>{children}</div>
      {caption !== undefined && <div style={{ padding: '4px 8px', fontFamily: 'ui-monospace, monospace', fontSize: 12, minHeight: 34 }}>{caption}</div>}
    </div>
  );
}

/** Background of every story canvas: light, so black ghosts show too. */
export const CANVAS_BACKGROUND = '#d8dde3';

/**
 * A Canvas looking down -z at the x/y plane (x right, y up), 1 unit ≈ 40 px on a 600 px panel.
 * In deterministic mode it renders only when the frame loop advances it (`frameloop="never"`).
 */
export function StoryCanvas({ children }: { children: ReactNode }): ReactNode {
  const loop = useFrameLoop();
  useLayoutEffect(() => loop?.expectCanvas(), [loop]);
  return (
    <Canvas camera={{ position: [0, 0, 12], fov: 50 }} dpr={1} style={{ position: 'absolute', inset: 0 }} frameloop={loop ? 'never' : 'always'}>
      {loop && <AdvancedByLoop loop={loop} />}
      <color attach="background" args={[CANVAS_BACKGROUND]} />
      <ambientLight intensity={1.2} />
      <directionalLight position={[3, 4, 10]} intensity={1.5} />
      <gridHelper args={[20, 20, '#9aa3ad', '#bcc3cb']} rotation={[Math.PI / 2, 0, 0]} position={[0, 0, -0.6]} />
      {children}
    </Canvas>
  );
}

/** Registers this R3F root with the frame loop: each frame advances it to the virtual time (useFrame callbacks, then the render). */
function AdvancedByLoop({ loop }: { loop: FixedFrameLoop }): null {
  const advance = useThree((s) => s.advance);
  // Global effects (addEffect) are not run: nothing in the stories uses them.
  useLayoutEffect(() => loop.addRoot((seconds) => advance(seconds, false)), [loop, advance]);
  return null;
}

const world = new Vector3();

/** The 0.6 m box the stories draw for a player (green unless `colour` says otherwise). */
export function PlayerBox({ colour = '#43a047' }: { colour?: string }): ReactNode {
  return (
    <mesh>
      <boxGeometry args={[0.6, 0.6, 0.6]} />
      <meshStandardMaterial color={colour} />
    </mesh>
  );
}

/** Publishes the page position of its parent's origin as probe `name` every frame (mount it inside a ghost's group). */
export function Probe({ name }: { name: string }): ReactNode {
  const ref = useRef<Group>(null);
  const { camera, gl } = useThree();
  useEffect(
    () => () => {
      delete storyState().probes[name];
    },
    [name],
  );
  useFrame(() => {
    const g = ref.current;
    if (!g) return;
    g.getWorldPosition(world).project(camera);
    const rect = gl.domElement.getBoundingClientRect();
    const inside = Math.abs(world.x) < 0.95 && Math.abs(world.y) < 0.95;
    if (!inside) {
      delete storyState().probes[name];
      return;
    }
    storyState().probes[name] = { x: rect.left + ((world.x + 1) / 2) * rect.width, y: rect.top + ((1 - world.y) / 2) * rect.height, background: CANVAS_BACKGROUND };
  });
  return <group ref={ref} />;
}

/**
 * The server's own ghosts of `type`, straight from `server.world` (no network): the truth
 * the clients converge to. Re-renders only when the set of ids changes; positions via refs.
 */
export function ServerGhosts<P extends Protocol>({ server, type, children }: { server: NetServer<P>; type: string; children: (ghost: Ghost<P>) => ReactNode }): ReactNode {
  const [ghosts, setGhosts] = useState<Ghost<P>[]>([]);
  const ids = useRef('');
  useFrame(() => {
    const list = [...server.world.query(type as never)] as Ghost<P>[];
    const key = list.map((g) => g.id).join(',');
    if (key !== ids.current) {
      ids.current = key;
      setGhosts(list);
    }
  });
  return ghosts.map((g) => <ServerGhost key={g.id} ghost={g}>{children(g)}</ServerGhost>);
}

function ServerGhost<P extends Protocol>({ ghost, children }: { ghost: Ghost<P>; children: ReactNode }): ReactNode {
  const ref = useRef<Group>(null);
  useFrame(() => {
    const p = (ghost.components as { position?: { x: number; y: number; z: number } }).position;
    if (p && ref.current) ref.current.position.set(p.x, p.y, p.z);
  });
  return <group ref={ref}>{children}</group>;
}

/** The server's ghosts of one type drawn as plain boxes or spheres (the "server truth" panels). */
export function ServerShapes<P extends Protocol>({ server, type, shape, size, color }: { server: NetServer<P>; type: string; shape: 'box' | 'sphere'; size: number; color: string }): ReactNode {
  return (
    <ServerGhosts server={server} type={type}>
      {() => (
        <mesh>
          {shape === 'box' ? <boxGeometry args={[size, size, size]} /> : <sphereGeometry args={[size, 16, 12]} />}
          <meshStandardMaterial color={color} />
        </mesh>
      )}
    </ServerGhosts>
  );
}

/** A readout polled every `ms` (default 200): shows what `read()` returns, keeps the last text when it returns undefined. */
export function usePolledText(read: () => string | undefined, initial = '', ms = 200): string {
  const [text, setText] = useState(initial);
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => {
    const id = setInterval(() => {
      const next = latest.current();
      if (next !== undefined) setText(next);
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
  return text;
}
