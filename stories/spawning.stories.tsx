// Predicted spawning: the bot throws a grenade every few hundred ms. The client
// shows it on the tick of the input (origin 'predicted', white); when the server's
// grenade arrives the classifier pairs them and the same object carries on
// (origin 'matched', red/green by spawnId parity). "Break classification" installs
// a classifier that refuses every pairing: the predicted grenades are destroyed at
// their deadline and the server's arrive as unmatched ghosts (origin 'snapshot', black).
import { useEffect, useRef, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import type { MeshStandardMaterial } from 'three';
import { defineProtocol, defineSystems, field, ghost, spawnIdClassifier, system, type Ghost } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, PlayerBox, Probe, SplitView, StoryCanvas, useLoopbackScene, ServerShapes, usePolledText } from './harness/react.tsx';
import type { LoopbackScene } from './harness/scene.ts';
import { reportFigure } from './harness/story-state.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted', 'interpolated'] }),
    grenade: ghost(
      { position: field.vec3({ quantize: 1000 }), velocity: field.vec3({ quantize: 1000 }), spawnId: field.u32(), fuse: field.f32({ replicated: false }) },
      { modes: ['predicted', 'interpolated'], classify: spawnIdClassifier() },
    ),
  },
  input: { fire: field.event() },
  join: { name: field.string(8) },
});
type P = typeof protocol;

const GRAVITY = -9;
const FUSE_S = 1.2;

const systems = defineSystems(protocol, [
  system.shared('throw', (world, ctx) => {
    for (const p of world.query('player')) {
      for (const id of ctx.spawnIds(p, 'fire')) {
        const n = id & 0xffff; // the press count
        ctx.spawn(
          'grenade',
          { position: p.components.position, velocity: { x: 3 + (n % 3), y: 6, z: 0 }, spawnId: id, fuse: ctx.isServer ? FUSE_S : Infinity },
          { owner: p.owner },
        );
      }
    }
  }),
  system.shared('fly', (world, ctx) => {
    for (const g of world.query('grenade')) {
      const c = g.components;
      c.velocity.y += GRAVITY * ctx.dt;
      c.position.x += c.velocity.x * ctx.dt;
      c.position.y += c.velocity.y * ctx.dt;
    }
  }),
  system.server('fuse', (world, ctx) => {
    for (const g of [...world.query('grenade')]) {
      g.components.fuse -= ctx.dt;
      if (g.components.fuse <= 0) ctx.despawn(g);
    }
  }),
]);

const nc = createNetcode(protocol, systems);

/** The sample's colours: matched → red/green by spawnId parity, unmatched snapshot ghost → black, still predicted → white. */
function grenadeColor(g: Ghost<P, 'grenade'>): string {
  if (g.origin === 'matched') return g.components.spawnId % 2 === 0 ? '#e53935' : '#43a047';
  if (g.origin === 'snapshot') return '#000000';
  return '#ffffff';
}

interface Args extends LinkArgs {
  /** Refuse every pairing: `client.spawns.setClassifier('grenade', () => 'notOurs')`. */
  breakClassification: boolean;
  /** Throws per second. */
  rate: number;
}

function Grenade({ g, index }: { g: Ghost<P, 'grenade'>; index: number }): ReactNode {
  const mat = useRef<MeshStandardMaterial>(null);
  useFrame(() => void mat.current?.color.set(grenadeColor(g)));
  return (
    <VisualProxy ghost={g}>
      <mesh>
        <sphereGeometry args={[0.3, 16, 12]} />
        <meshStandardMaterial ref={mat} color={grenadeColor(g)} />
      </mesh>
      {index === 0 && <Probe name="grenade" />}
    </VisualProxy>
  );
}

function Thrower({ args, scene }: { args: Args; scene: LoopbackScene<P> }): ReactNode {
  const { client } = nc.useNetcode();
  const me = nc.useLocalGhost('player');
  const grenades = nc.useGhosts('grenade');
  useEffect(() => {
    if (!args.breakClassification) return;
    const previous = client.spawns.setClassifier('grenade', () => 'notOurs');
    return () => void client.spawns.setClassifier('grenade', previous);
  }, [client, args.breakClassification]);
  // On the scene's clock: in deterministic mode a press lands on the same frame every run.
  useEffect(() => {
    if (!me) return;
    return scene.every(1000 / args.rate, () => client.input.press('fire'));
  }, [me, client, args.rate, scene]);
  // Count what is on screen by origin, each frame (the figure the story teaches).
  const seen = useRef({ matched: 0, snapshot: 0, predicted: 0 });
  const counted = useRef(new Map<number, string>());
  useFrame(() => {
    for (const g of client.world.query('grenade')) {
      if (g.origin === 'predicted') continue;
      if (counted.current.get(g.handle) === undefined) {
        counted.current.set(g.handle, g.origin);
        if (g.origin === 'matched') seen.current.matched++;
        else seen.current.snapshot++;
      }
    }
    const stats = client.spawns.stats;
    reportFigure({ matchedShown: seen.current.matched, unmatchedShown: seen.current.snapshot, predicted: stats.predicted, matched: stats.matched, rejected: stats.rejected });
  });
  return (
    <>
      {me && (
        <VisualProxy ghost={me}>
          <PlayerBox colour="#1e88e5" />
          <Probe name="player" />
        </VisualProxy>
      )}
      {grenades.map((g, i) => (
        <Grenade key={g.handle} g={g} index={i} />
      ))}
    </>
  );
}

function Stats(): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure ?? {};
      return (`predicted ${String(f.predicted ?? 0)} · matched ${String(f.matched ?? 0)} · rejected ${String(f.rejected ?? 0)} · unmatched (black) shown ${String(f.unmatchedShown ?? 0)}`);
    return undefined;
  }, '', 250);
}

function PredictedSpawning(args: Args): ReactNode {
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => server.events.on('join', (c) => void server.spawn('player', { position: { x: -4, y: -2, z: 0 } }, { owner: c.networkId })),
  }));
  return (
    <SplitView
      description={
        <>
          <b>Predicted spawning.</b> Grenades appear on the tick of the throw (white while predicted). When the server&apos;s grenade arrives the{' '}
          <code>spawnIdClassifier</code> pairs it with the predicted one, which carries on as the same object: red or green (spawnId parity). With{' '}
          <i>break classification</i> every pairing is refused: predicted grenades vanish at their deadline and the server&apos;s appear as unmatched, black ones.
        </>
      }
    >
      {scene && (
        <>
          <Panel title={args.breakClassification ? 'Client — classification broken' : 'Client — predicted spawns'} caption={<Stats />}>
            <nc.NetcodeProvider clock={scene.clientClock} transport={scene.transport(linkConditions(args))} join={{ name: 'bot' }}>
              <StoryCanvas>
                <NetcodeFrame now={scene.frameNow} />
                <Thrower args={args} scene={scene} />
              </StoryCanvas>
            </nc.NetcodeProvider>
          </Panel>
          <Panel title="Server truth">
            <StoryCanvas>
              <ServerShapes server={scene.server} type="grenade" shape="sphere" size={0.3} color="#8e24aa" />
              <ServerShapes server={scene.server} type="player" shape="box" size={0.6} color="#1e88e5" />
            </StoryCanvas>
          </Panel>
        </>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Spawning/Predicted spawning',
  component: PredictedSpawning,
  render: (args) => <PredictedSpawning key={argsKey(args)} {...args} />,
  args: { ...linkArgs, breakClassification: false, rate: 3 },
  argTypes: {
    ...linkArgTypes,
    breakClassification: { control: 'boolean', description: "client.spawns.setClassifier('grenade', () => 'notOurs'): no predicted grenade is ever matched" },
    rate: { control: { type: 'range', min: 0.5, max: 10, step: 0.5 }, description: 'Throws per second' },
  },
  parameters: { docs: { description: { component: 'Matched predicted spawns (red/green) vs. unmatched snapshot ghosts (black).' } } },
} satisfies Meta<typeof PredictedSpawning>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Matched: Story = { name: 'Predicted spawning' };
export const BrokenClassification: Story = { name: 'Predicted spawning — break classification', args: { breakClassification: true } };
