// Debug views: <NetDebug> in the scene (blue predicted path, orange confirmed samples,
// magenta rendered position, per ghost) and <NetGraph> over the canvas (RTT, bandwidth,
// corrections). The own player zig-zags on a scripted input; a remote bot, moved by
// the server, is interpolated — so both kinds of ghost show their debug geometry.
import { useEffect, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame, useThree } from '@react-three/fiber';
import type { BufferGeometry, Object3D } from 'three';
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';
import { createNetcode, NetGraph } from 'react-netcode/react';
import { NET_DEBUG_NAMES, NetcodeFrame, NetDebug, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, PlayerBox, Probe, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';

interface Args extends LinkArgs {
  /** Vertices per ghost in the NetDebug path and samples. */
  trail: number;
  /** Seconds of history in the NetGraph. */
  seconds: number;
}

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
    bot: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['interpolated'] }),
  },
  input: { move: field.vec2({ quantize: 100 }) },
});

const systems = defineSystems(protocol, [
  system.shared('run', (world, ctx) => {
    for (const p of world.query('player')) {
      const m = ctx.input(p).move;
      p.components.position.x = Math.max(-3, Math.min(3, p.components.position.x + m.x * 3 * ctx.dt));
      p.components.position.y = Math.max(0, Math.min(2.5, p.components.position.y + m.y * 3 * ctx.dt));
    }
  }),
  system.server('patrol', (world, ctx) => {
    for (const b of world.query('bot')) b.components.position.x = 3 * Math.sin(ctx.tick / 90);
  }),
]);

const nc = createNetcode(protocol, systems);

function Ghosts(): ReactNode {
  const me = nc.useLocalGhost('player');
  const bots = nc.useGhosts('bot');
  const scene = useThree((s) => s.scene);
  const [counts] = useState(() => ({ predicted: 0, confirmed: 0, rendered: 0, drawn: 0 }));
  useFrame(() => {
    counts.predicted = counts.confirmed = counts.rendered = counts.drawn = 0;
    scene.traverse((o: Object3D) => {
      const kind = (Object.keys(NET_DEBUG_NAMES) as (keyof typeof NET_DEBUG_NAMES)[]).find((k) => NET_DEBUG_NAMES[k] === o.name);
      if (!kind) return;
      counts[kind]++;
      const g = (o as Object3D & { geometry?: BufferGeometry }).geometry;
      if (g && g.drawRange.count > 0) counts.drawn++;
    });
  });
  useEffect(() => {
    const id = setInterval(() => {
      const graph = document.querySelector('[data-netgraph]');
      reportFigure({
        predictedPaths: counts.predicted,
        confirmedSamples: counts.confirmed,
        renderedPoints: counts.rendered,
        debugObjectsDrawing: counts.drawn,
        netGraph: graph ? 1 : 0,
        netGraphSeries: graph?.querySelectorAll('polyline[points]:not([points=""])').length ?? 0,
      });
    }, 200);
    return () => clearInterval(id);
  }, [counts]);
  return (
    <>
      {me && (
        <VisualProxy ghost={me}>
          <PlayerBox />
          <Probe name="player" />
        </VisualProxy>
      )}
      {bots.map((b) => (
        <VisualProxy key={b.handle} ghost={b}>
          <mesh>
            <sphereGeometry args={[0.35, 24, 16]} />
            <meshStandardMaterial color="#455a64" />
          </mesh>
        </VisualProxy>
      ))}
    </>
  );
}

function Readout(): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure as Record<string, number> | undefined;
      if (f) return (`NetDebug: ${f.predictedPaths ?? 0} paths, ${f.confirmedSamples ?? 0} sample sets, ${f.renderedPoints ?? 0} rendered points (${f.debugObjectsDrawing ?? 0} drawing) · NetGraph ${f.netGraph ? 'on' : 'off'}`);
    return undefined;
  }, '');
}

function DebugViews(args: Args): ReactNode {
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => {
      server.spawn('bot', { position: { x: 0, y: -2, z: 0 } });
      server.events.on('join', (c) => void server.spawn('player', { position: { x: 2, y: 1, z: 0 } }, { owner: c.networkId }));
    },
  }));
  return (
    <SplitView
      description={
        <>
          <b>Debug views.</b> <code>&lt;NetDebug trail=&#123;{args.trail}&#125;&gt;</code> draws, for each ghost, the predicted path (blue line), the confirmed server
          samples (orange points: the gap to the blue line is the prediction lead, ≈ RTT) and where it is rendered (magenta). <code>&lt;NetGraph&gt;</code> (top left)
          plots RTT, bandwidth and corrections over the last {args.seconds} s. Raise loss or jitter and watch both react.
        </>
      }
    >
      {scene && (
        <Panel title="Client with <NetDebug> and <NetGraph>" caption={<Readout />}>
          <nc.NetcodeProvider
            clock={scene.clientClock}
            transport={scene.transport(linkConditions(args))}
            join={{}}
            clientOptions={{
              onInput: (input, tick) => {
                // Zig-zag: left/right every 2 s, up/down every 0.75 s.
                input.move = { x: Math.floor(tick / 120) % 2 === 0 ? 1 : -1, y: Math.floor(tick / 45) % 2 === 0 ? 1 : -1 };
              },
            }}
          >
            <StoryCanvas>
              <NetcodeFrame now={scene.frameNow} />
              <Ghosts />
              <NetDebug trail={args.trail} />
            </StoryCanvas>
            <NetGraph seconds={args.seconds} />
          </nc.NetcodeProvider>
        </Panel>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Debug/Debug views',
  component: DebugViews,
  render: (args) => <DebugViews key={argsKey(args)} {...args} />,
  args: { ...linkArgs, trail: 64, seconds: 10 },
  argTypes: {
    ...linkArgTypes,
    trail: { control: { type: 'range', min: 2, max: 256, step: 1 }, description: 'NetDebug vertices per ghost (64 ≈ 1 s at 60 Hz)' },
    seconds: { control: { type: 'range', min: 2, max: 60, step: 1 }, description: 'NetGraph history, s' },
  },
  parameters: { docs: { description: { component: '<NetDebug> and <NetGraph> on a predicted player and an interpolated bot.' } } },
} satisfies Meta<typeof DebugViews>;

export default meta;
type Story = StoryObj<typeof meta>;

export const DebugViewsStory: Story = { name: 'Debug views' };
