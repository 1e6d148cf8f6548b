// Prediction switching: the player runs along a row of bobbing orbs. Orbs within
// `radius` of the player are predicted (shown at the player's own, predicted time), orbs
// beyond `radius + margin` interpolated (shown in the past). A switch moves an orb between
// two timelines a round trip apart; the ModeTransition blends over `transitionMs` so the
// drawn orb never jumps.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import { Color, type Mesh, type MeshStandardMaterial } from 'three';
import { defineProtocol, defineSystems, field, ghost, system, type Ghost } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, PlayerBox, Probe, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';
import { runX } from './harness/scene.ts';

const SPEED = 2;
const LIMIT = 4;
const ORBS = [-3, -1.5, 0, 1.5, 3];
/** Fastest an orb moves by itself (bob: 0.4 m amplitude at π rad/s), m/s. */
const ORB_SPEED = 0.4 * Math.PI;
/** What a 250 ms blend between timelines a few hundred ms apart may add, m/s. */
const BLEND_SPEED = 3;

interface Args extends LinkArgs {
  radius: number;
  margin: number;
  transitionMs: number;
}

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
    orb: ghost({ position: field.vec3({ quantize: 1000 }), baseX: field.f32() }, { modes: ['predicted', 'interpolated'] }),
  },
  input: { move: field.f32({ quantize: 100, min: -1, max: 1 }) },
});

const systems = defineSystems(protocol, [
  system.shared('run', (world, ctx) => {
    for (const p of world.query('player')) runX(p.components.position, ctx.input(p).move, SPEED, LIMIT, ctx.dt);
  }),
  // Deterministic in the tick: predicted orbs match the server exactly.
  system.shared('bob', (world, ctx) => {
    for (const o of world.query('orb')) {
      o.components.position.x = o.components.baseX;
      o.components.position.y = -0.8 + 0.4 * Math.sin((ctx.tick / 60) * Math.PI + o.components.baseX);
    }
  }),
]);

const nc = createNetcode(protocol, systems);
const direction = (tick: number): number => (Math.floor(tick / 240) % 2 === 0 ? 1 : -1);

const PREDICTED = new Color('#1e88e5');
const INTERPOLATED = new Color('#fb8c00');

function Orb({ orb, stat }: { orb: Ghost<typeof protocol, 'orb'>; stat: { maxJump: number; maxExcess: number; frames: number } }): ReactNode {
  const mesh = useRef<Mesh>(null);
  const last = useRef<{ x: number; y: number } | undefined>(undefined);
  useFrame((_s, dt) => {
    const m = mesh.current;
    if (!m) return;
    (m.material as MeshStandardMaterial).color.copy(orb.mode === 'predicted' ? PREDICTED : INTERPOLATED);
    const p = m.parent!.position;
    if (last.current && stat.frames > 60) {
      // A jump is movement beyond what the orb's own speed plus a blend explain in this frame's dt
      // (a slow frame in a headless browser moves it further, and that is not a jump).
      const moved = Math.hypot(p.x - last.current.x, p.y - last.current.y);
      stat.maxJump = Math.max(stat.maxJump, moved);
      stat.maxExcess = Math.max(stat.maxExcess, moved - (ORB_SPEED + BLEND_SPEED) * dt);
    }
    last.current = { x: p.x, y: p.y };
  });
  return (
    <VisualProxy ghost={orb}>
      <mesh ref={mesh}>
        <sphereGeometry args={[0.35, 24, 16]} />
        <meshStandardMaterial color="#fb8c00" />
      </mesh>
      {orb.components.baseX === 0 && <Probe name="orb" />}
    </VisualProxy>
  );
}

function Scene({ args }: { args: Args }): ReactNode {
  const { client } = nc.useNetcode();
  const me = nc.useLocalGhost('player');
  const orbs = nc.useGhosts('orb');
  const [stat] = useState(() => ({ maxJump: 0, maxExcess: 0, frames: 0, switches: 0, toPredicted: 0, toInterpolated: 0 }));
  useEffect(() => {
    if (!me) return;
    client.setPredictionSwitching({ radius: args.radius, margin: args.margin, transitionMs: args.transitionMs, center: () => me.components.position });
    const off = client.ghosts.events.on('mode', (_g, mode) => {
      stat.switches++;
      if (mode === 'predicted') stat.toPredicted++;
      else stat.toInterpolated++;
    });
    return () => {
      off();
      client.setPredictionSwitching(undefined);
    };
  }, [client, me, args.radius, args.margin, args.transitionMs, stat]);
  useFrame(() => void stat.frames++);
  useEffect(() => {
    const id = setInterval(() => reportFigure({ switches: stat.switches, toPredicted: stat.toPredicted, toInterpolated: stat.toInterpolated, maxOrbJump: stat.maxJump, maxOrbJumpBeyondSpeed: stat.maxExcess }), 100);
    return () => clearInterval(id);
  }, [stat]);
  return (
    <>
      {me && (
        <VisualProxy ghost={me}>
          <PlayerBox />
          <mesh position={[0, 0, -0.5]}>
            <ringGeometry args={[args.radius - 0.03, args.radius, 64]} />
            <meshBasicMaterial color="#1e88e5" />
          </mesh>
          <mesh position={[0, 0, -0.5]}>
            <ringGeometry args={[args.radius + args.margin - 0.03, args.radius + args.margin, 64]} />
            <meshBasicMaterial color="#fb8c00" />
          </mesh>
          <Probe name="player" />
        </VisualProxy>
      )}
      {orbs.map((o) => (
        <Orb key={o.handle} orb={o} stat={stat} />
      ))}
    </>
  );
}

function Readout(): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure as Record<string, number> | undefined;
      if (f) return (`switches ${f.switches ?? 0} (→ predicted ${f.toPredicted ?? 0}, → interpolated ${f.toInterpolated ?? 0}) · largest orb move per frame ${(f.maxOrbJump ?? 0).toFixed(3)} m, beyond its speed ${(f.maxOrbJumpBeyondSpeed ?? 0).toFixed(3)} m`);
    return undefined;
  }, '', 100);
}

function PredictionSwitching(args: Args): ReactNode {
  const scene = useLoopbackScene(() => ({
    protocol,
    systems,
    setup: (server) => {
      for (const x of ORBS) server.spawn('orb', { baseX: x, position: { x, y: -1, z: 0 } });
      server.events.on('join', (c) => void server.spawn('player', { position: { x: -LIMIT, y: 0.4, z: 0 } }, { owner: c.networkId }));
    },
  }));
  return (
    <SplitView
      description={
        <>
          <b>Prediction switching (radius, margin, transition).</b> <code>client.setPredictionSwitching</code> around the green player: orbs inside the blue ring (radius{' '}
          {args.radius} m) turn blue — predicted, shown at the player&apos;s time; beyond the orange ring (radius + margin {args.margin} m) they turn orange again —
          interpolated, {args.rttMs} ms RTT plus the interpolation delay in the past. The margin stops flapping at the edge; each switch blends over{' '}
          {args.transitionMs} ms (try 0: the orbs jump between the two timelines).
        </>
      }
    >
      {scene && (
        <Panel title="Client" caption={<Readout />}>
          <nc.NetcodeProvider clock={scene.clientClock} transport={scene.transport(linkConditions(args))} join={{}} clientOptions={{ onInput: (input, tick) => void (input.move = direction(tick)) }}>
            <StoryCanvas>
              <NetcodeFrame now={scene.frameNow} />
              <Scene args={args} />
            </StoryCanvas>
          </nc.NetcodeProvider>
        </Panel>
      )}
    </SplitView>
  );
}

const meta = {
  title: 'Prediction/Prediction switching',
  component: PredictionSwitching,
  render: (args) => <PredictionSwitching key={argsKey(args)} {...args} />,
  args: { ...linkArgs, rttMs: 200, loss: 0, radius: 1.4, margin: 0.5, transitionMs: 250 },
  argTypes: {
    ...linkArgTypes,
    radius: { control: { type: 'range', min: 0.5, max: 5, step: 0.1 }, description: 'Predict orbs closer than this, m' },
    margin: { control: { type: 'range', min: 0, max: 3, step: 0.1 }, description: 'Interpolate again beyond radius + margin, m (hysteresis)' },
    transitionMs: { control: { type: 'range', min: 0, max: 1000, step: 10 }, description: 'Blend duration of a switch, ms' },
  },
  parameters: { docs: { description: { component: 'Distance-based prediction switching with hysteresis and a blended transition.' } } },
} satisfies Meta<typeof PredictionSwitching>;

export default meta;
type Story = StoryObj<typeof meta>;

export const PredictionSwitchingStory: Story = { name: 'Prediction switching (radius, margin, transition)' };
