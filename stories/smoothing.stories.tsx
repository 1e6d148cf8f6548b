// Error smoothing with and without <VisualProxy>: one client, one predicted player that a
// server-only system shoves now and then. Left: a box copying ghost.components (the
// simulation state) every frame — it steps tick by tick and jumps on every correction.
// Right: the same ghost through <VisualProxy> (client.view: frame interpolation plus the
// decaying VisualCorrection) — it slides. Both panels share one client (one provider).
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import type { Group } from 'three';
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, SplitView, StoryCanvas, useLoopbackScene } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';
import { runX } from './harness/scene.ts';

const SPEED = 3;
const LIMIT = 2.5;

interface Args extends LinkArgs {
  /** Ticks between server shoves. */
  pushTicks: number;
  /** VisualCorrection decay time, ms. */
  smoothingMs: number;
}

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), pushTicks: field.u16() }, { modes: ['predicted', 'interpolated'] }) },
  input: { move: field.f32({ quantize: 100, min: -1, max: 1 }) },
});

const systems = defineSystems(protocol, [
  system.shared('run', (world, ctx) => {
    for (const p of world.query('player')) runX(p.components.position, ctx.input(p).move, SPEED, LIMIT, ctx.dt);
  }),
  system.server('shove', (world, ctx) => {
    for (const p of world.query('player')) if (ctx.tick % Math.max(1, p.components.pushTicks) === 0) p.components.position.y = p.components.position.y > 0 ? -0.6 : 0.6;
  }),
]);

const nc = createNetcode(protocol, systems);
const direction = (tick: number): number => (Math.floor(tick / 60) % 2 === 0 ? 1 : -1);

/**
 * Largest jump of a drawn object between two frames of at most 50 ms (after the first second):
 * how far it moved beyond what walking at SPEED for that frame's time explains, so a long frame
 * on a loaded machine (the box legitimately covers SPEED × dt) does not count as a jump.
 */
class Jumps {
  private last: { x: number; y: number } | undefined;
  private frames = 0;
  max = 0;
  see(x: number, y: number, dt: number): void {
    // Frames over 50 ms are stalls: no smoothing can spread a correction over a frame longer than itself.
    if (this.last && ++this.frames > 60 && dt <= 0.05) this.max = Math.max(this.max, Math.hypot(x - this.last.x, y - this.last.y) - SPEED * dt);
    this.last = { x, y };
  }
}

const Box = ({ color }: { color: string }): ReactNode => (
  <mesh>
    <boxGeometry args={[0.8, 0.8, 0.8]} />
    <meshStandardMaterial color={color} />
  </mesh>
);

function Raw({ jumps }: { jumps: Jumps }): ReactNode {
  const me = nc.useLocalGhost('player');
  const ref = useRef<Group>(null);
  useFrame((_, dt) => {
    if (!me || !ref.current) return;
    const p = me.components.position;
    ref.current.position.set(p.x, p.y, p.z);
    jumps.see(p.x, p.y, dt);
  });
  if (!me) return null;
  return (
    <group ref={ref}>
      <Box color="#e53935" />
      <Probe name="raw" />
    </group>
  );
}

function Smoothed({ jumps }: { jumps: Jumps }): ReactNode {
  const me = nc.useLocalGhost('player');
  const ref = useRef<Group>(null);
  useFrame((_, dt) => {
    if (ref.current) jumps.see(ref.current.position.x, ref.current.position.y, dt);
  });
  if (!me) return null;
  return (
    <VisualProxy ghost={me} ref={ref}>
      <Box color="#1e88e5" />
      <Probe name="proxy" />
    </VisualProxy>
  );
}

function Readout({ jumps, name }: { jumps: Jumps; name: string }): ReactNode {
  const [text, setText] = useState('');
  const { client } = nc.useNetcode();
  useEffect(() => {
    const id = setInterval(() => {
      reportFigure({ [`${name}MaxJump`]: jumps.max, corrections: client.prediction?.stats.corrections ?? 0 });
      setText(`largest per-frame jump beyond walking ${jumps.max.toFixed(3)} m · corrections ${client.prediction?.stats.corrections ?? 0}`);
    }, 100);
    return () => clearInterval(id);
  }, [jumps, name, client]);
  return text;
}

function ErrorSmoothing(args: Args): ReactNode {
  const [raw] = useState(() => new Jumps());
  const [proxy] = useState(() => new Jumps());
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => server.events.on('join', (c) => void server.spawn('player', { position: { x: 0, y: 0, z: 0 }, pushTicks: args.pushTicks }, { owner: c.networkId })),
  }));
  return (
    <SplitView
      description={
        <>
          <b>Error smoothing with and without &lt;VisualProxy&gt;.</b> One predicted player, shoved 1.2 m by the server every {args.pushTicks} ticks. Left (red): a
          group copying <code>ghost.components</code> each frame — the simulation state steps tick by tick and jumps on every rollback. Right (blue): the same ghost
          through <code>&lt;VisualProxy&gt;</code>, frame-interpolated with the correction decaying over {args.smoothingMs} ms. Compare the largest per-frame jumps.
        </>
      }
    >
      {scene && (
        <nc.NetcodeProvider
          clock={scene.clientClock}
          transport={scene.transport(linkConditions(args))}
          join={{}}
          clientOptions={{ prediction: { correction: { smoothingMs: args.smoothingMs } }, onInput: (input, tick) => void (input.move = direction(tick)) }}
        >
          <Panel title="ghost.components (raw simulation state)" caption={<Readout jumps={raw} name="raw" />}>
            <StoryCanvas>
              <NetcodeFrame now={scene.frameNow} />
              <Raw jumps={raw} />
            </StoryCanvas>
          </Panel>
          <Panel title="<VisualProxy> (client.view)" caption={<Readout jumps={proxy} name="proxy" />}>
            <StoryCanvas>
              <Smoothed jumps={proxy} />
            </StoryCanvas>
          </Panel>
        </nc.NetcodeProvider>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Smoothing/Error smoothing with and without VisualProxy',
  component: ErrorSmoothing,
  render: (args) => <ErrorSmoothing key={argsKey(args)} {...args} />,
  args: { ...linkArgs, loss: 0, pushTicks: 60, smoothingMs: 200 },
  argTypes: {
    ...linkArgTypes,
    pushTicks: { control: { type: 'range', min: 20, max: 240, step: 10 }, description: 'Ticks between server-only shoves' },
    smoothingMs: { control: { type: 'range', min: 0, max: 1000, step: 10 }, description: 'VisualCorrection decay time, ms (0 = snap, like the raw box)' },
  },
  parameters: { docs: { description: { component: 'Rendering ghost.components directly vs. through <VisualProxy>: per-frame jumps.' } } },
} satisfies Meta<typeof ErrorSmoothing>;

export default meta;
type Story = StoryObj<typeof meta>;

export const ErrorSmoothingStory: Story = { name: 'Error smoothing with and without <VisualProxy>' };
