// Prediction on/off with latency: two clients on the same conditioned link, both
// driven by the same scripted input (run right, then left, flipping every second).
// Left: the own player predicted (moves on the tick of the input). Middle: the same
// game with the own player shown interpolated, i.e. without prediction (moves a
// round trip plus the interpolation delay later). Right: the server's truth.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import type { Group } from 'three';
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, ServerGhosts, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import type { LoopbackScene } from './harness/scene.ts';
import { reportFigure } from './harness/story-state.ts';
import { runX } from './harness/scene.ts';

const SPEED = 3; // m/s
/** The track: the box stops at ±LIMIT m (the input keeps flipping, so it comes back). */
const LIMIT = 2.5;

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), lane: field.u8() }, { modes: ['predicted', 'interpolated'] }) },
  input: { move: field.f32({ quantize: 100, min: -1, max: 1 }) },
  join: { lane: field.u8() },
});
type P = typeof protocol;

const systems = defineSystems(protocol, [
  system.shared('run', (world, ctx) => {
    for (const p of world.query('player')) runX(p.components.position, ctx.input(p).move, SPEED, LIMIT, ctx.dt);
  }),
]);

const nc = createNetcode(protocol, systems);
const LANE_Y = [1.5, -1.5];
const COLORS = ['#1e88e5', '#43a047'];

interface Args extends LinkArgs {
  /** Ticks between direction changes of the scripted input. */
  flipTicks: number;
}

/** Scripted input: +1 for flipTicks, then −1 for flipTicks, … */
const direction = (tick: number, flipTicks: number): number => (Math.floor(tick / flipTicks) % 2 === 0 ? 1 : -1);

/**
 * Measures response latency: the time from the first tick sampled with a new direction
 * to the first frame where the drawn player moves that way, on the scene's clock
 * (performance.now() in real time, the virtual clock in deterministic mode).
 */
class Response {
  constructor(private readonly now: () => number) {}
  private dir = 0;
  private flippedAt: number | undefined;
  private lastX: number | undefined;
  readonly samples: number[] = [];
  input(dir: number): void {
    if (this.dir !== 0 && dir !== this.dir) this.flippedAt = this.now();
    this.dir = dir;
  }
  drawn(x: number): void {
    if (this.lastX !== undefined && this.flippedAt !== undefined && (x - this.lastX) * this.dir > 1e-4) {
      this.samples.push(this.now() - this.flippedAt);
      this.flippedAt = undefined;
    }
    this.lastX = x;
  }
  get meanMs(): number {
    const s = this.samples.slice(-6);
    return s.length === 0 ? NaN : s.reduce((a, b) => a + b, 0) / s.length;
  }
}

function Player({ predicted, response, label }: { predicted: boolean; response: Response; label: string }): ReactNode {
  const me = nc.useLocalGhost('player');
  const { client } = nc.useNetcode();
  const ref = useRef<Group>(null);
  useEffect(() => {
    if (me && !predicted) client.setGhostMode(me, 'interpolated');
  }, [me, predicted, client]);
  useFrame(() => {
    if (ref.current) response.drawn(ref.current.position.x);
  });
  if (!me) return null;
  return (
    <VisualProxy ghost={me} ref={ref}>
      <mesh>
        <boxGeometry args={[0.8, 0.8, 0.8]} />
        <meshStandardMaterial color={COLORS[me.components.lane] ?? '#000'} />
      </mesh>
      <Probe name={label} />
    </VisualProxy>
  );
}

function Readout({ response, name }: { response: Response; name: string }): ReactNode {
  return usePolledText(() => {
      const mean = response.meanMs;
      reportFigure({ [`${name}ResponseMs`]: mean, [`${name}Samples`]: response.samples.length });
      if (Number.isFinite(mean)) return (`input → screen: ${mean.toFixed(0)} ms (mean of last ${Math.min(6, response.samples.length)} flips)`);
    return undefined;
  }, 'measuring…', 250);
}

function ClientPanel({ scene, args, lane, predicted }: { scene: LoopbackScene<P>; args: Args; lane: number; predicted: boolean }): ReactNode {
  const [response] = useState(() => new Response(scene.now));
  const name = predicted ? 'predicted' : 'unpredicted';
  return (
    <Panel title={predicted ? 'Client A — prediction on' : 'Client B — prediction off (own player interpolated)'} caption={<Readout response={response} name={name} />}>
      <nc.NetcodeProvider
        clock={scene.clientClock}
        transport={scene.transport(linkConditions(args, lane))}
        join={{ lane }}
        clientOptions={{
          onInput: (input, tick) => {
            input.move = direction(tick, args.flipTicks);
            response.input(input.move);
          },
        }}
      >
        <StoryCanvas>
          <NetcodeFrame now={scene.frameNow} />
          <Player predicted={predicted} response={response} label={name} />
        </StoryCanvas>
      </nc.NetcodeProvider>
    </Panel>
  );
}

function PredictionOnOff(args: Args): ReactNode {
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => {
      server.events.on('join', (c) => {
        const lane = c.joinPayload?.lane ?? 0;
        server.spawn('player', { lane, position: { x: 0, y: LANE_Y[lane] ?? 0, z: 0 } }, { owner: c.networkId });
      });
    },
  }));
  return (
    <SplitView
      description={
        <>
          <b>Prediction on/off with latency.</b> Both clients send the same scripted input (flip every {args.flipTicks} ticks) over a {args.rttMs} ms RTT link. With
          prediction the box turns on the tick of the input; without it, it turns a round trip plus the interpolation delay later. The server panel shows both boxes
          where the server has them.
        </>
      }
    >
      {scene && (
        <>
          <ClientPanel scene={scene} args={args} lane={0} predicted />
          <ClientPanel scene={scene} args={args} lane={1} predicted={false} />
          <Panel title="Server truth" caption="server.world, read directly in the page">
            <StoryCanvas>
              <ServerGhosts server={scene.server} type="player">
                {(g) => (
                  <mesh>
                    <boxGeometry args={[0.8, 0.8, 0.8]} />
                    <meshStandardMaterial color={COLORS[(g.components as { lane: number }).lane] ?? '#000'} />
                  </mesh>
                )}
              </ServerGhosts>
            </StoryCanvas>
          </Panel>
        </>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Prediction/Prediction on-off with latency',
  component: PredictionOnOff,
  render: (args) => <PredictionOnOff key={argsKey(args)} {...args} />,
  args: { ...linkArgs, loss: 0, flipTicks: 60 },
  argTypes: { ...linkArgTypes, flipTicks: { control: { type: 'range', min: 10, max: 180, step: 5 }, description: 'Ticks between direction flips of the scripted input' } },
  parameters: {
    docs: { description: { component: 'Local player with prediction vs. the same player interpolated (no prediction), and the server truth, under configurable latency.' } },
  },
} satisfies Meta<typeof PredictionOnOff>;

export default meta;
type Story = StoryObj<typeof meta>;

export const PredictionOnOffStory: Story = { name: 'Prediction on/off with latency' };
