// Predicted physics, smoothed vs exact: two whole games side by side, each a server and
// a client in the page. A kinematic paddle (the local player, predicted) sweeps on a
// scripted input through a pile of dynamic boxes (predicted too, rollback 'always').
// smoothed: one persistent Rapier world per peer, per-body restore after a rollback —
// the boxes in contact mispredict and the VisualCorrection hides it. exact: the world
// is rebuilt from quantized state after every snapshot tick on both sides, so every
// rollback reproduces the server bit for bit and nothing is ever corrected.
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import RAPIER from '@dimforge/rapier3d-compat';
import { defineProtocol, defineSystems, field, ghost, system } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, PredictedRigidBody, VisualProxy } from 'react-netcode/r3f';
import { createPhysics, type PhysicsMode } from 'react-netcode/rapier';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import { boxArenaBodies, boxArenaLevel, HALF, PADDLE, useRapierReady, WALL } from './harness/rapier.ts';
import { reportFigure } from './harness/story-state.ts';

interface Args extends LinkArgs {
  /** Dynamic boxes in the pile. */
  boxes: number;
  /** Ticks inputs should reach the server early (ClockSync minSlackTicks): exact mode stays exact only while no input is late. */
  slackTicks: number;
}

const SPEED = 6; // m/s, the paddle's top speed
const OVER = 0.01; // a correction above 1 cm counts

/** The scripted paddle target at a tick, rounded to the wire's 0.01 m steps: x sweeps ±3.8 m, y bobs between 0.4 and 2.4 m. */
function paddleTarget(tick: number): { x: number; y: number } {
  const t = tick / 60;
  return { x: Math.round(3.8 * Math.sin(t * 0.9) * 100) / 100, y: Math.round((1.4 + Math.sin(t * 2.1)) * 100) / 100 };
}

function boxStart(i: number): { x: number; y: number; z: number } {
  const row = Math.floor(i / 6);
  return { x: 0.6 + (i % 6) * 0.6 + (row % 2) * 0.3, y: HALF + row * 0.55, z: 0 };
}

function makeGame(mode: PhysicsMode) {
  const protocol = defineProtocol({
    tickRate: 60,
    snapshotRate: 20,
    ghosts: {
      player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
      box: ghost(
        { position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) },
        { modes: ['predicted'] }, // the paddle touches them: predicted on the client
      ),
    },
    input: { target: field.vec2({ quantize: 100 }) },
  });
  const physics = createPhysics(RAPIER, {
    mode,
    level: boxArenaLevel,
    bodies: boxArenaBodies,
  });
  const systems = defineSystems(protocol, [
    system.shared('sweep', (world, ctx) => {
      for (const p of world.query('player')) {
        // Head for the input's target at up to SPEED (a kinematic body goes wherever it is moved: keep it above the floor).
        const { target } = ctx.input(p);
        const pos = p.components.position;
        const d = { x: target.x - pos.x, y: Math.max(PADDLE, target.y) - pos.y };
        const scale = Math.min(1, (SPEED * ctx.dt) / (Math.hypot(d.x, d.y) || 1));
        physics.moveKinematic(p, { x: d.x * scale, y: d.y * scale, z: 0 });
      }
    }),
    physics.system(), // last: in exact mode it quantizes the state at snapshot ticks
  ]);
  return { protocol, physics, systems, nc: createNetcode(protocol, systems) };
}
type Game = ReturnType<typeof makeGame>;

function Bodies({ game, name }: { game: Game; name: string }): ReactNode {
  const me = game.nc.useLocalGhost('player');
  const boxes = game.nc.useGhosts('box');
  const { client } = game.nc.useNetcode();
  const [stat] = useState(() => ({ maxOffset: 0, over1cm: 0 }));
  useFrame(() => {
    const prediction = client.prediction;
    if (!prediction) return;
    for (const g of [...(me ? [me] : []), ...boxes]) {
      const offset = prediction.correction(g)?.offsetMagnitude ?? 0;
      stat.maxOffset = Math.max(stat.maxOffset, offset);
      if (offset > OVER) stat.over1cm++;
    }
  });
  useEffect(() => {
    const id = setInterval(() => {
      const s = client.prediction?.stats;
      reportFigure({
        [`${name}Corrections`]: s?.corrections ?? 0,
        [`${name}Rollbacks`]: s?.rollbacks ?? 0,
        [`${name}Mispredictions`]: s?.mispredictions ?? 0,
        [`${name}Over1cm`]: stat.over1cm,
        [`${name}MaxOffset`]: stat.maxOffset,
        [`${name}Boxes`]: boxes.length,
      });
    }, 100);
    return () => clearInterval(id);
  }, [client, name, stat, boxes.length]);
  useEffect(() => () => void setTimeout(() => game.physics.dispose(client.world)), [game, client]);
  return (
    <group position={[0, -2.5, 0]}>
      <mesh position={[0, -0.05, 0]}>
        <boxGeometry args={[2 * WALL, 0.1, 0.1]} />
        <meshStandardMaterial color="#546e7a" />
      </mesh>
      {[-1, 1].map((side) => (
        <mesh key={side} position={[side * (WALL + 0.05), 2.5, 0]}>
          <boxGeometry args={[0.1, 5, 0.1]} />
          <meshStandardMaterial color="#546e7a" />
        </mesh>
      ))}
      {me && (
        <VisualProxy ghost={me}>
          <mesh>
            <boxGeometry args={[2 * PADDLE, 2 * PADDLE, 2 * PADDLE]} />
            <meshStandardMaterial color="#1e88e5" />
          </mesh>
          <Probe name={`${name}Player`} />
        </VisualProxy>
      )}
      {boxes.map((b, i) => (
        <PredictedRigidBody key={b.handle} ghost={b} physics={game.physics}>
          <mesh>
            <boxGeometry args={[2 * HALF, 2 * HALF, 2 * HALF]} />
            <meshStandardMaterial color={i % 2 === 0 ? '#fb8c00' : '#43a047'} />
          </mesh>
        </PredictedRigidBody>
      ))}
    </group>
  );
}

function Readout({ name }: { name: string }): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure as Record<string, number> | undefined;
      const v = (k: string): number => f?.[`${name}${k}`] ?? 0;
      if (f && `${name}Rollbacks` in f)
        return (`rollbacks ${v('Rollbacks')} · corrections ${v('Corrections')} · frames × ghosts corrected > 1 cm: ${v('Over1cm')} · max offset ${(v('MaxOffset') * 100).toFixed(1)} cm · late inputs ${v('InputsLate')}`);
    return undefined;
  }, 'connecting…');
}

function GamePanel({ args, mode, seed }: { args: Args; mode: PhysicsMode; seed: number }): ReactNode {
  const game = useMemo(() => makeGame(mode), [mode]);
  const [timers] = useState(() => new Set<ReturnType<typeof setInterval>>());
  const scene = useLoopbackScene(() => ({
    protocol: game.protocol,
    systems: game.systems,
    server: { snapshotBudgetBytes: 16_000 }, // every box in every snapshot: exactness needs the whole world
    setup: (server) => {
      for (let i = 0; i < args.boxes; i++) server.spawn('box', { position: boxStart(i) });
      server.events.on('join', (c) => {
        server.spawn('player', { position: { x: 0, y: PADDLE, z: 0 } }, { owner: c.networkId });
        const id = setInterval(() => {
          const s = server.inputStats(c);
          if (s) reportFigure({ [`${mode}InputsLate`]: s.late, [`${mode}InputsMissing`]: s.missing });
        }, 250);
        timers.add(id);
      });
    },
  }));
  useEffect(() => {
    if (!scene) return;
    return () => {
      for (const id of timers) clearInterval(id);
      setTimeout(() => game.physics.dispose(scene.server.world));
    };
  }, [scene, game, timers]);
  return (
    <Panel title={`mode: '${mode}'`} caption={<Readout name={mode} />}>
      {scene && (
        <game.nc.NetcodeProvider
          clock={scene.clientClock}
          transport={scene.transport(linkConditions(args, seed))}
          join={{}}
          clientOptions={{ prediction: { rollback: 'always' }, clock: { minSlackTicks: args.slackTicks }, onInput: (input, tick) => void Object.assign(input.target, paddleTarget(tick)) }}
        >
          <StoryCanvas>
            <NetcodeFrame now={scene.frameNow} />
            <Bodies game={game} name={mode} />
          </StoryCanvas>
        </game.nc.NetcodeProvider>
      )}
    </Panel>
  );
}

function PhysicsModes(args: Args): ReactNode {
  const ready = useRapierReady();
  return (
    <SplitView
      description={
        <>
          <b>Physics: smoothed vs exact.</b> Two games, each a server and a predicting client over {args.rttMs} ms RTT: a kinematic paddle (blue, the local player) sweeps
          through {args.boxes} dynamic boxes, all predicted (<code>createPhysics(RAPIER, &#123; mode &#125;)</code> from <code>react-netcode/rapier</code>, drawn with{' '}
          <code>&lt;PredictedRigidBody&gt;</code>). <b>smoothed</b> keeps one Rapier world per peer: after each rollback the contacts mispredict and the VisualCorrection
          hides it. <b>exact</b> rebuilds the world from quantized state after every snapshot tick on both sides: every rollback is bit-identical, nothing is corrected.
        </>
      }
    >
      {!ready ? (
        <div style={{ padding: 20 }}>Loading Rapier (RAPIER.init())…</div>
      ) : (
        <>
          <GamePanel args={args} mode="smoothed" seed={0} />
          <GamePanel args={args} mode="exact" seed={1} />
        </>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Physics/Smoothed vs exact',
  component: PhysicsModes,
  render: (args) => <PhysicsModes key={argsKey(args)} {...args} />,
  args: { ...linkArgs, rttMs: 100, jitterMs: 0, loss: 0, boxes: 10, slackTicks: 6 },
  argTypes: {
    ...linkArgTypes,
    boxes: { control: { type: 'range', min: 1, max: 30, step: 1 }, description: 'Dynamic boxes in the pile' },
    slackTicks: { control: { type: 'range', min: 0, max: 12, step: 1 }, description: 'clock.minSlackTicks: ticks early inputs aim to reach the server (a late input breaks exactness)' },
  },
  parameters: { docs: { description: { component: "react-netcode/rapier's two modes side by side: corrections in 'smoothed', none in 'exact'." } } },
} satisfies Meta<typeof PhysicsModes>;

export default meta;
type Story = StoryObj<typeof meta>;

export const PhysicsModesStory: Story = { name: 'Physics: smoothed vs exact' };
