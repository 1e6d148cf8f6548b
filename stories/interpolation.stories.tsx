// Interpolation and extrapolation under jitter and loss: a server-driven ghost circles
// the origin; the client shows it on the interpolation timeline (a safe delay behind the
// newest snapshot). Jitter widens the delay; lost snapshots make the timeline run past
// the newest one (extrapolation), never more than maxExtrapolationTicks (20), and the
// shown tick never goes backwards.
import { useEffect, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import { defineProtocol, defineSystems, field, ghost, system, tickDiff, type Tick } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, NetDebug, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, SplitView, StoryCanvas, useLoopbackScene, ServerShapes, usePolledText } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';

const RADIUS = 3;

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { drone: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }) },
  input: {},
});

/** Server only: the drone circles at 1 rad/s. Clients only ever see it through snapshots. */
const systems = defineSystems(protocol, [
  system.server('circle', (world, ctx) => {
    const a = (ctx.tick / 60) * 1;
    for (const d of world.query('drone')) {
      d.components.position.x = RADIUS * Math.cos(a);
      d.components.position.y = RADIUS * Math.sin(a);
    }
  }),
]);

const nc = createNetcode(protocol, systems);

type Args = LinkArgs;

function Drone(): ReactNode {
  const drones = nc.useGhosts('drone');
  const { client } = nc.useNetcode();
  const [stat] = useState(() => ({ first: undefined as Tick | undefined, last: -Infinity, backwards: 0, maxExtrapolation: 0, extrapolatingFrames: 0, samples: 0, delay: 0 }));
  useFrame(() => {
    const t = client.ghosts.timeline;
    if (t.newestSnapshotTick === undefined) return;
    stat.first ??= t.tick;
    const at = tickDiff(t.tick, stat.first) + t.fraction;
    if (at < stat.last - 1e-6) stat.backwards++;
    stat.last = at;
    stat.samples++;
    stat.delay = t.delayTicks;
    stat.maxExtrapolation = Math.max(stat.maxExtrapolation, t.extrapolationTicks);
    if (t.extrapolationTicks > 0) stat.extrapolatingFrames++;
  });
  useEffect(() => {
    const id = setInterval(
      () =>
        reportFigure({
          samples: stat.samples,
          backwards: stat.backwards,
          maxExtrapolationTicks: stat.maxExtrapolation,
          extrapolatingFrames: stat.extrapolatingFrames,
          delayTicks: stat.delay,
          maxAllowedExtrapolationTicks: client.ghosts.timeline.maxExtrapolationTicks,
        }),
      100,
    );
    return () => clearInterval(id);
  }, [client, stat]);
  return drones.map((d) => (
    <VisualProxy key={d.handle} ghost={d}>
      <mesh>
        <sphereGeometry args={[0.45, 24, 16]} />
        <meshStandardMaterial color="#fb8c00" />
      </mesh>
      <Probe name="drone" />
    </VisualProxy>
  ));
}

function Readout(): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure as Record<string, number> | undefined;
      if (f?.samples)
        return (
          `delay ${(f.delayTicks ?? 0).toFixed(1)} ticks · extrapolating ${f.extrapolatingFrames} frames, max ${(f.maxExtrapolationTicks ?? 0).toFixed(1)} ticks (cap ${f.maxAllowedExtrapolationTicks}) · backwards ${f.backwards}`
        );
    return undefined;
  }, '', 100);
}

function InterpolationUnderJitter(args: Args): ReactNode {
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => void server.spawn('drone', { position: { x: RADIUS, y: 0, z: 0 } }),
  }));
  return (
    <SplitView
      description={
        <>
          <b>Interpolation and extrapolation under jitter and loss.</b> The orange drone is moved by the server only; the client draws it on the interpolation timeline,{' '}
          a delay behind the newest snapshot that grows with jitter (±{args.jitterMs} ms). With {Math.round(args.loss * 100)} % of snapshots lost the timeline sometimes
          runs past the newest one (extrapolation, capped at 20 ticks, then it holds). The orange dots (<code>&lt;NetDebug&gt;</code>) are the snapshots received;
          gaps are losses. The shown tick never goes backwards.
        </>
      }
    >
      {scene && (
        <>
          <Panel title="Client — interpolated drone" caption={<Readout />}>
            <nc.NetcodeProvider clock={scene.clientClock} transport={scene.transport(linkConditions(args))} join={{}}>
              <StoryCanvas>
                <NetcodeFrame now={scene.frameNow} />
                <Drone />
                <NetDebug />
              </StoryCanvas>
            </nc.NetcodeProvider>
          </Panel>
          <Panel title="Server truth">
            <StoryCanvas>
              <ServerShapes server={scene.server} type="drone" shape="sphere" size={0.45} color="#8e24aa" />
            </StoryCanvas>
          </Panel>
        </>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Interpolation/Interpolation and extrapolation under jitter and loss',
  component: InterpolationUnderJitter,
  render: (args) => <InterpolationUnderJitter key={argsKey(args)} {...args} />,
  args: { ...linkArgs, jitterMs: 40, loss: 0.25 },
  argTypes: { ...linkArgTypes },
  parameters: { docs: { description: { component: 'A remote ghost on the interpolation timeline: delay, extrapolation over lost snapshots, monotonic time.' } } },
} satisfies Meta<typeof InterpolationUnderJitter>;

export default meta;
type Story = StoryObj<typeof meta>;

export const InterpolationStory: Story = { name: 'Interpolation and extrapolation under jitter and loss' };
