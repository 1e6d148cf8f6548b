// Quantization and bandwidth: the same swarm of drifting ghosts, replicated three times
// with three precisions of the position field — raw float32, `quantize: fine` and
// `quantize: coarse` (steps of 1/quantize m). Each panel is its own game (server and
// client) and measures the bytes its client receives per snapshot: fewer bits per
// value, smaller snapshots; too coarse and the motion visibly steps.
import { useEffect, useMemo, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';

interface Args extends LinkArgs {
  /** Ghosts in the swarm. */
  count: number;
  /** quantize of the fine panel (steps per metre). */
  fine: number;
  /** quantize of the coarse panel (steps per metre). */
  coarse: number;
}

function makeGame(quantize: number | undefined) {
  const protocol = defineProtocol({
    tickRate: 60,
    snapshotRate: 20,
    ghosts: { mote: ghost({ position: field.vec3(quantize === undefined ? {} : { quantize }), seed: field.u8() }, { modes: ['interpolated'] }) },
    input: {},
  });
  const systems = defineSystems(protocol, [
    system.server('drift', (world, ctx) => {
      const t = ctx.tick / 60;
      for (const m of world.query('mote')) {
        const s = m.components.seed;
        m.components.position.x = 2 * Math.sin(t * (0.3 + (s % 5) * 0.06) + s);
        m.components.position.y = 2.5 * Math.cos(t * (0.25 + (s % 7) * 0.04) + 2 * s);
        m.components.position.z = 0.5 * Math.sin(t * 0.9 + s);
      }
    }),
  ]);
  return { protocol, systems, nc: createNetcode(protocol, systems) };
}
type Game = ReturnType<typeof makeGame>;

function Swarm({ game, name, now }: { game: Game; name: string; now: () => number }): ReactNode {
  const motes = game.nc.useGhosts('mote');
  const { client } = game.nc.useNetcode();
  useEffect(() => {
    // Seconds on the scene's clock (virtual in deterministic mode, where frames do not follow wall time).
    let last = { at: now(), bytes: client.traffic.bytesIn };
    const id = setInterval(() => {
      const sample = { at: now(), bytes: client.traffic.bytesIn };
      const seconds = (sample.at - last.at) / 1000;
      // Skip the join burst (the first full snapshots): measure once ghosts are in and steady.
      if (motes.length > 0 && last.bytes > 0 && seconds > 0) reportFigure({ [`${name}BytesPerSnapshot`]: (sample.bytes - last.bytes) / seconds / client.protocol.snapshotRate });
      last = sample;
    }, 1000);
    return () => clearInterval(id);
  }, [client, name, motes.length, now]);
  return motes.map((m, i) => (
    <VisualProxy key={m.handle} ghost={m}>
      <mesh>
        <sphereGeometry args={[i === 0 ? 0.35 : 0.18, 12, 8]} />
        <meshStandardMaterial color={i === 0 ? '#e53935' : '#3949ab'} />
      </mesh>
      {i === 0 && <Probe name={name} />}
    </VisualProxy>
  ));
}

function Readout({ name }: { name: string }): ReactNode {
  return usePolledText(() => {
      const v = (window.__story?.figure as Record<string, number> | undefined)?.[`${name}BytesPerSnapshot`];
      if (v !== undefined) return (`≈ ${v.toFixed(0)} bytes per snapshot (client.traffic.bytesIn / s ÷ snapshotRate)`);
    return undefined;
  }, 'measuring…', 250);
}

function GamePanel({ args, quantize, name, title, seed }: { args: Args; quantize: number | undefined; name: string; title: string; seed: number }): ReactNode {
  const game = useMemo(() => makeGame(quantize), [quantize]);
  const scene = useLoopbackScene(() => ({
    protocol: game.protocol,
    systems: game.systems,
    setup: (server) => {
      for (let i = 0; i < args.count; i++) server.spawn('mote', { seed: i, position: { x: 0, y: 0, z: 0 } });
    },
  }));
  return (
    <Panel title={title} caption={<Readout name={name} />}>
      {scene && (
        <game.nc.NetcodeProvider clock={scene.clientClock} transport={scene.transport(linkConditions(args, seed))} join={{}}>
          <StoryCanvas>
            <NetcodeFrame now={scene.frameNow} />
            <Swarm game={game} name={name} now={scene.now} />
          </StoryCanvas>
        </game.nc.NetcodeProvider>
      )}
    </Panel>
  );
}

function QuantizationBandwidth(args: Args): ReactNode {
  return (
    <SplitView
      description={
        <>
          <b>Quantization and bandwidth.</b> {args.count} drifting ghosts, three times: position as raw float32, as <code>field.vec3(&#123; quantize: {args.fine} &#125;)</code>{' '}
          (1/{args.fine} m steps) and as <code>quantize: {args.coarse}</code>. The caption is what each client receives per snapshot. Coarser precision, fewer bits per
          changed value — and at very coarse settings the motes move in visible steps.
        </>
      }
    >
      <GamePanel args={args} quantize={undefined} name="raw" title="float32 (no quantize)" seed={0} />
      <GamePanel args={args} quantize={args.fine} name="fine" title={`quantize: ${args.fine}`} seed={1} />
      <GamePanel args={args} quantize={args.coarse} name="coarse" title={`quantize: ${args.coarse}`} seed={2} />
    </SplitView>
  );
}

const meta = {
  title: 'Bandwidth/Quantization and bandwidth',
  component: QuantizationBandwidth,
  render: (args) => <QuantizationBandwidth key={argsKey(args)} {...args} />,
  args: { ...linkArgs, loss: 0, count: 24, fine: 1000, coarse: 10 },
  argTypes: {
    ...linkArgTypes,
    count: { control: { type: 'range', min: 1, max: 64, step: 1 }, description: 'Ghosts in the swarm' },
    fine: { control: { type: 'select' }, options: [10000, 1000, 100], description: 'quantize of the middle panel (steps per metre)' },
    coarse: { control: { type: 'select' }, options: [100, 10, 4, 1], description: 'quantize of the right panel (steps per metre)' },
  },
  parameters: { docs: { description: { component: 'Bytes per snapshot for raw, finely and coarsely quantized positions.' } } },
} satisfies Meta<typeof QuantizationBandwidth>;

export default meta;
type Story = StoryObj<typeof meta>;

export const QuantizationStory: Story = { name: 'Quantization and bandwidth' };
