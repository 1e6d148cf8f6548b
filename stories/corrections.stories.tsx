// Rollback and corrections: the player runs left and right on a scripted input
// (predicted), and every `pushTicks` ticks a server-only system shoves it up or down.
// The client cannot predict the shove: when the snapshot arrives it rolls back,
// resimulates, and the jump between what it showed and the corrected state becomes a
// VisualCorrection offset that decays to zero over `smoothingMs`.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import type { Group } from 'three';
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, SplitView, StoryCanvas, useLoopbackScene, ServerShapes, usePolledText } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';
import { runX } from './harness/scene.ts';

const SPEED = 3;
const LIMIT = 2.5;

interface Args extends LinkArgs {
  /** Ticks between server shoves. */
  pushTicks: number;
  /** Size of a shove, m. */
  pushDistance: number;
  /** VisualCorrection decay time, ms. */
  smoothingMs: number;
}

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), pushTicks: field.u16(), pushDistance: field.f32() }, { modes: ['predicted', 'interpolated'] }) },
  input: { move: field.f32({ quantize: 100, min: -1, max: 1 }) },
});

const systems = defineSystems(protocol, [
  system.shared('run', (world, ctx) => {
    for (const p of world.query('player')) runX(p.components.position, ctx.input(p).move, SPEED, LIMIT, ctx.dt);
  }),
  // Only the server knows about the shove: the client mispredicts every one of them.
  system.server('shove', (world, ctx) => {
    for (const p of world.query('player')) {
      const every = Math.max(1, p.components.pushTicks);
      if (ctx.tick % every === 0) p.components.position.y = p.components.position.y > 0 ? -p.components.pushDistance / 2 : p.components.pushDistance / 2;
    }
  }),
]);

const nc = createNetcode(protocol, systems);

const direction = (tick: number): number => (Math.floor(tick / 60) % 2 === 0 ? 1 : -1);

function Player(): ReactNode {
  const me = nc.useLocalGhost('player');
  const { client } = nc.useNetcode();
  const raw = useRef<Group>(null);
  const [stat] = useState(() => ({ maxOffset: 0, settled: 0, wasActive: false, offset: 0 }));
  useFrame(() => {
    if (!me || !client.prediction) return;
    const c = client.prediction.correction(me);
    const offset = c?.offsetMagnitude ?? 0;
    stat.offset = offset;
    stat.maxOffset = Math.max(stat.maxOffset, offset);
    if (offset > 1e-3) stat.wasActive = true;
    else if (stat.wasActive && offset === 0) {
      stat.wasActive = false;
      stat.settled++;
    }
    const p = me.components.position;
    raw.current?.position.set(p.x, p.y, p.z);
  });
  useEffect(() => {
    const id = setInterval(() => {
      const s = client.prediction?.stats;
      reportFigure({ corrections: s?.corrections ?? 0, rollbacks: s?.rollbacks ?? 0, maxOffset: stat.maxOffset, offset: stat.offset, settled: stat.settled });
    }, 100);
    return () => clearInterval(id);
  }, [client, stat]);
  if (!me) return null;
  return (
    <>
      <group ref={raw}>
        <mesh>
          <boxGeometry args={[0.8, 0.8, 0.8]} />
          <meshBasicMaterial color="#e53935" wireframe />
        </mesh>
      </group>
      <VisualProxy ghost={me}>
        <mesh>
          <boxGeometry args={[0.8, 0.8, 0.8]} />
          <meshStandardMaterial color="#1e88e5" />
        </mesh>
        <Probe name="player" />
      </VisualProxy>
    </>
  );
}

function Readout(): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure as Record<string, number> | undefined;
      if (f) return (`corrections ${f.corrections ?? 0} · rollbacks ${f.rollbacks ?? 0} · offset ${(f.offset ?? 0).toFixed(3)} m (max ${(f.maxOffset ?? 0).toFixed(2)}) · decayed to 0: ${f.settled ?? 0}×`);
    return undefined;
  }, '', 100);
}

function RollbackCorrections(args: Args): ReactNode {
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => server.events.on('join', (c) => void server.spawn('player', { position: { x: 0, y: 0, z: 0 }, pushTicks: args.pushTicks, pushDistance: args.pushDistance }, { owner: c.networkId })),
  }));
  return (
    <SplitView
      description={
        <>
          <b>Rollback and corrections.</b> Every {args.pushTicks} ticks a server-only system shoves the player {args.pushDistance} m up or down. The client learns of it a
          round trip later ({args.rttMs} ms), rolls back and resimulates: the red wireframe (simulated state) jumps at once, the blue box (what{' '}
          <code>&lt;VisualProxy&gt;</code> draws) slides over {args.smoothingMs} ms as the VisualCorrection offset decays to 0. Set smoothingMs to 0 to see it snap.
        </>
      }
    >
      {scene && (
        <>
          <Panel title="Client — predicted, corrected" caption={<Readout />}>
            <nc.NetcodeProvider
              clock={scene.clientClock}
              transport={scene.transport(linkConditions(args))}
              join={{}}
              clientOptions={{ prediction: { correction: { smoothingMs: args.smoothingMs } }, onInput: (input, tick) => void (input.move = direction(tick)) }}
            >
              <StoryCanvas>
                <NetcodeFrame now={scene.frameNow} />
                <Player />
              </StoryCanvas>
            </nc.NetcodeProvider>
          </Panel>
          <Panel title="Server truth">
            <StoryCanvas>
              <ServerShapes server={scene.server} type="player" shape="box" size={0.8} color="#8e24aa" />
            </StoryCanvas>
          </Panel>
        </>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Prediction/Rollback and corrections',
  component: RollbackCorrections,
  render: (args) => <RollbackCorrections key={argsKey(args)} {...args} />,
  args: { ...linkArgs, loss: 0, pushTicks: 90, pushDistance: 1.2, smoothingMs: 250 },
  argTypes: {
    ...linkArgTypes,
    pushTicks: { control: { type: 'range', min: 20, max: 240, step: 10 }, description: 'Ticks between server-only shoves' },
    pushDistance: { control: { type: 'range', min: 0.1, max: 3, step: 0.1 }, description: 'Shove size, m (above 2 m the correction snaps: teleportDistance)' },
    smoothingMs: { control: { type: 'range', min: 0, max: 1000, step: 10 }, description: 'VisualCorrection decay time, ms (0 = snap)' },
  },
  parameters: { docs: { description: { component: 'A server-only push the client cannot predict: rollback, resimulation and the decaying VisualCorrection offset.' } } },
} satisfies Meta<typeof RollbackCorrections>;

export default meta;
type Story = StoryObj<typeof meta>;

export const RollbackCorrectionsStory: Story = { name: 'Rollback and corrections' };
