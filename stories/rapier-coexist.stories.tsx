// Predicted physics beside @react-three/rapier: one game (a server and a predicting
// client in the page) whose paddle and boxes are predicted bodies of react-netcode/rapier,
// stepped by the engine on ticks in its own headless world — and, on the client only,
// cosmetic debris in @react-three/rapier's <Physics>, stepped by R3F on frames. The two
// worlds never share a body. Each drawn predicted body has a kinematic twin in the
// cosmetic world that follows its drawn pose, so debris bounces off the paddle and the
// boxes; nothing cosmetic ever pushes a predicted body (it would exist on one client only).
import { Suspense, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import { CuboidCollider, Physics, RigidBody, useAfterPhysicsStep, useRapier, type RapierRigidBody } from '@react-three/rapier';
import RAPIER from '@dimforge/rapier3d-compat';
import { Quaternion, Vector3, type Group } from 'three';
import { defineProtocol, defineSystems, field, ghost, system, type Ghost } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, PredictedRigidBody } from 'react-netcode/r3f';
import { createPhysics } from 'react-netcode/rapier';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import { boxArenaBodies, boxArenaLevel, DEPTH, HALF, PADDLE, useRapierReady, WALL } from './harness/rapier.ts';
import { reportFigure } from './harness/story-state.ts';

interface Args extends LinkArgs {
  /** Cosmetic debris pieces dropped over time (client only, @react-three/rapier). */
  debris: number;
}

const BIT = 0.1; // debris half extent
const FLOOR_Y = -2.5; // both worlds are drawn in a group lowered by this much

const minor = (version: string): number => Number(/^0\.(\d+)/.exec(version)?.[1] ?? 0);

function makeGame() {
  const protocol = defineProtocol({
    tickRate: 60,
    snapshotRate: 20,
    ghosts: {
      player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
      box: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3({ quantize: 1000 }), angvel: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
    },
    input: { x: field.f32() },
  });
  const physics = createPhysics(RAPIER, {
    level: boxArenaLevel,
    bodies: boxArenaBodies,
  });
  const systems = defineSystems(protocol, [
    system.shared('sweep', (world, ctx) => {
      for (const p of world.query('player')) {
        const dx = Math.max(-6 * ctx.dt, Math.min(6 * ctx.dt, ctx.input(p).x - p.components.position.x));
        physics.moveKinematic(p, { x: dx, y: 0, z: 0 });
      }
    }),
    physics.system(),
  ]);
  return { protocol, physics, systems, nc: createNetcode(protocol, systems) };
}
type Game = ReturnType<typeof makeGame>;

const v = new Vector3();
const q = new Quaternion();

/** A kinematic body of the cosmetic world that follows a drawn predicted body (its group's world pose), so debris collides with it. */
function Twin({ of, half, onHit }: { of: RefObject<Group | null>; half: number; onHit: () => void }): ReactNode {
  const body = useRef<RapierRigidBody>(null);
  useFrame(() => {
    const g = of.current;
    const b = body.current;
    if (!g || !b) return;
    b.setNextKinematicTranslation(g.getWorldPosition(v));
    b.setNextKinematicRotation(g.getWorldQuaternion(q));
  });
  return (
    <RigidBody ref={body} type="kinematicPosition" colliders={false} position={[0, 10, 0]} onCollisionEnter={onHit}>
      <CuboidCollider args={[half, half, half]} />
    </RigidBody>
  );
}

function PredictedWithTwin({ ghost: g, game, half, colour, onHit, children }: { ghost: Ghost<Game['protocol']>; game: Game; half: number; colour: string; onHit: () => void; children?: ReactNode }): ReactNode {
  const ref = useRef<Group>(null);
  return (
    <>
      <PredictedRigidBody ref={ref} ghost={g} physics={game.physics}>
        <mesh>
          <boxGeometry args={[2 * half, 2 * half, 2 * half]} />
          <meshStandardMaterial color={colour} />
        </mesh>
        {children}
      </PredictedRigidBody>
      <Twin of={ref} half={half} onHit={onHit} />
    </>
  );
}

/** The client's cosmetic world: floor and walls, debris dropped every 15 frames, and what it counts. */
function Debris({ count, stat }: { count: number; stat: { steps: number; hits: number; r3rBodies: number; r3rRapierMinor: number } }): ReactNode {
  const { world, rapier } = useRapier();
  const [pieces, setPieces] = useState<{ key: number; x: number; z: number; spin: number }[]>([]);
  const rng = useMemo(() => {
    let s = 11; // a seeded LCG: the same debris on every run
    return { range: (a: number, b: number): number => a + (b - a) * ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) };
  }, []);
  const frames = useRef(0);
  useFrame(() => {
    if (++frames.current % 15 !== 0 || pieces.length >= count) return;
    setPieces((p) => [...p, { key: p.length, x: rng.range(-4.5, 4.5), z: rng.range(-0.6, 0.6), spin: rng.range(0, 3) }]);
  });
  useAfterPhysicsStep(() => {
    stat.steps++;
    stat.r3rBodies = world.bodies.len();
  });
  useEffect(() => void (stat.r3rRapierMinor = minor(rapier.version())), [rapier, stat]);
  return (
    <>
      <RigidBody type="fixed" colliders={false}>
        <CuboidCollider args={[20, 0.5, 5]} position={[0, -0.5, 0]} />
        {[-1, 1].map((side) => (
          <CuboidCollider key={side} args={[0.5, 5, 5]} position={[side * (WALL + 0.5), 5, 0]} />
        ))}
        {[-1, 1].map((side) => (
          <CuboidCollider key={`z${side}`} args={[20, 5, 0.5]} position={[0, 5, side * (DEPTH + 0.5)]} />
        ))}
      </RigidBody>
      {pieces.map((p) => (
        <RigidBody key={p.key} colliders="cuboid" position={[p.x, 6, p.z]} rotation={[p.spin, p.spin / 2, 0]} restitution={0.3}>
          <mesh>
            <boxGeometry args={[2 * BIT, 2 * BIT, 2 * BIT]} />
            <meshStandardMaterial color="#8d6e63" />
          </mesh>
        </RigidBody>
      ))}
    </>
  );
}

function Scene({ game, args }: { game: Game; args: Args }): ReactNode {
  const me = game.nc.useLocalGhost('player');
  const boxes = game.nc.useGhosts('box');
  const { client } = game.nc.useNetcode();
  const [stat] = useState(() => ({ steps: 0, hits: 0, r3rBodies: 0, r3rRapierMinor: 0 }));
  const hit = (): void => void stat.hits++;
  useEffect(() => {
    const id = setInterval(() => {
      let netcodeBodies = 0;
      game.physics.world(client.world)?.forEachRigidBody(() => void netcodeBodies++);
      reportFigure({
        rollbacks: client.prediction?.stats.rollbacks ?? 0,
        boxes: boxes.length,
        netcodeBodies, // the predicted paddle and boxes only: no debris ever enters the engine's world
        r3rSteps: stat.steps,
        r3rBodies: stat.r3rBodies, // debris, the twins and the fixed level
        debrisHits: stat.hits, // debris (or the level) touching a predicted body's twin
        adapterRapierMinor: minor(RAPIER.version()),
        r3rRapierMinor: stat.r3rRapierMinor,
      });
    }, 100);
    return () => clearInterval(id);
  }, [client, game, boxes.length, stat]);
  return (
    <group position={[0, FLOOR_Y, 0]}>
      <mesh position={[0, -0.05, 0]}>
        <boxGeometry args={[2 * WALL, 0.1, 0.1]} />
        <meshStandardMaterial color="#546e7a" />
      </mesh>
      <Suspense fallback={null}>
        <Physics timeStep={1 / 60}>
          <Debris count={args.debris} stat={stat} />
          {me && (
            <PredictedWithTwin ghost={me} game={game} half={PADDLE} colour="#1e88e5" onHit={hit}>
              <Probe name="player" />
            </PredictedWithTwin>
          )}
          {boxes.map((b, i) => (
            <PredictedWithTwin key={b.handle} ghost={b} game={game} half={HALF} colour={i % 2 === 0 ? '#fb8c00' : '#43a047'} onHit={hit} />
          ))}
        </Physics>
      </Suspense>
    </group>
  );
}

function Readout(): ReactNode {
  return usePolledText(() => {
    const f = window.__story?.figure as Record<string, number> | undefined;
    if (!f || !('r3rSteps' in f)) return undefined;
    return `engine world: ${f['netcodeBodies']} predicted bodies, ${f['rollbacks']} rollbacks (Rapier 0.${f['adapterRapierMinor']}) · ` +
      `@react-three/rapier world: ${f['r3rBodies']} bodies, ${f['r3rSteps']} steps, ${f['debrisHits']} debris hits on predicted twins (Rapier 0.${f['r3rRapierMinor']})`;
  }, 'connecting…');
}

function Coexist(args: Args): ReactNode {
  const ready = useRapierReady();
  return ready ? <Game args={args} /> : <div style={{ padding: 20 }}>Loading Rapier (RAPIER.init())…</div>;
}

/** The game, once Rapier's WASM is initialised (the server's first tick steps a world). */
function Game({ args }: { args: Args }): ReactNode {
  const game = useMemo(makeGame, []);
  const scene = useLoopbackScene(() => ({
    protocol: game.protocol,
    systems: game.systems,
    setup: (server) => {
      for (let i = 0; i < 8; i++) server.spawn('box', { position: { x: -3 + i * 0.8, y: HALF, z: 0 } });
      server.events.on('join', (c) => void server.spawn('player', { position: { x: 0, y: PADDLE, z: 0 } }, { owner: c.networkId }));
    },
  }));
  useEffect(() => {
    if (!scene) return;
    return () => void setTimeout(() => game.physics.dispose(scene.server.world));
  }, [scene, game]);
  return (
    <SplitView
      description={
        <>
          <b>Predicted physics beside @react-three/rapier.</b> The paddle (blue, the local player) and the boxes are predicted bodies of <code>react-netcode/rapier</code>,
          simulated on ticks in the engine&apos;s own world (server and client). The brown debris lives only on this client, in <code>&lt;Physics&gt;</code> of{' '}
          <code>@react-three/rapier</code>, stepped on frames. Each predicted body has a kinematic twin there that follows its drawn pose: debris bounces off predicted
          bodies, and never pushes them.
        </>
      }
    >
      {!scene ? (
        <div style={{ padding: 20 }}>Starting…</div>
      ) : (
        <Panel title="one client: engine world + cosmetic world" caption={<Readout />}>
          <game.nc.NetcodeProvider
            clock={scene.clientClock}
            transport={scene.transport(linkConditions(args, 0))}
            join={{}}
            clientOptions={{ onInput: (input, tick) => void (input.x = Math.round(3.8 * Math.sin((tick / 60) * 0.9) * 100) / 100) }}
          >
            <StoryCanvas>
              <NetcodeFrame now={scene.frameNow} />
              <Scene game={game} args={args} />
            </StoryCanvas>
          </game.nc.NetcodeProvider>
        </Panel>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Physics/With @react-three/rapier',
  component: Coexist,
  render: (args) => <Coexist key={argsKey(args)} {...args} />,
  args: { ...linkArgs, rttMs: 100, jitterMs: 0, loss: 0, debris: 40 },
  argTypes: { ...linkArgTypes, debris: { control: { type: 'range', min: 0, max: 100, step: 5 }, description: 'Cosmetic debris pieces (client only)' } },
  parameters: { docs: { description: { component: 'Predicted react-netcode/rapier bodies and cosmetic @react-three/rapier bodies in one scene: two worlds, one-way collisions.' } } },
} satisfies Meta<typeof Coexist>;

export default meta;
type Story = StoryObj<typeof meta>;

export const CoexistStory: Story = { name: 'Predicted bodies with cosmetic @react-three/rapier debris' };
