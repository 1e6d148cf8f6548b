// Lag compensation: a shooter (the local player, predicted) fires automatically at a
// target the server moves back and forth (interpolated on the client, so shown about
// RTT/2 + the interpolation delay in the past). The client aims exactly at the target
// as it draws it. The server casts every shot twice: rewound to the view the client had
// when it fired (`createLagCompensation(server)` + `ctx.interpolationView(shooter)`),
// and at the present (`raycastNow`, what a server without lag compensation sees).
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Meta, StoryObj } from '@storybook/react-vite';
import { useFrame } from '@react-three/fiber';
import { Vector3, type Mesh } from 'three';
import { defineProtocol, defineSystems, field, ghost, system, type Vec3 } from 'react-netcode';
import { createNetcode } from 'react-netcode/react';
import { NetcodeFrame, VisualProxy } from 'react-netcode/r3f';
import { createLagCompensation, type LagCompensation } from 'react-netcode/rapier';
import { argsKey, linkArgs, linkArgTypes, linkConditions, type LinkArgs } from './harness/args.ts';
import { Panel, Probe, ServerGhosts, SplitView, StoryCanvas, useLoopbackScene, usePolledText } from './harness/react.tsx';
import { reportFigure } from './harness/story-state.ts';

interface Args extends LinkArgs {
  /** Target speed, m/s. */
  speed: number;
  /** Display frames between automatic shots. */
  shotFrames: number;
}

const RADIUS = 0.3; // target sphere
const RANGE = 5; // the target patrols x ∈ [-RANGE, RANGE] at y = TARGET_Y
const TARGET_Y = 2;
const SHOOTER: Vec3 = { x: 0, y: -3, z: 0 };

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    shooter: ghost({ position: field.vec3({ quantize: 1000 }) }, { modes: ['predicted'] }),
    target: ghost({ position: field.vec3({ quantize: 1000 }), speed: field.f32() }, { modes: ['interpolated'] }),
  },
  input: { aim: field.vec3({ quantize: 10000 }), fire: field.event() },
});
type P = typeof protocol;

/** Target x at tick t: a triangle wave over [-RANGE, RANGE] at `speed`. */
function targetX(tick: number, speed: number): number {
  const s = ((tick * speed) / 60) % (4 * RANGE);
  return s < 2 * RANGE ? s - RANGE : 3 * RANGE - s;
}

interface Tally {
  shots: number;
  lag: number;
  now: number;
}

function makeGame() {
  const holder: { lag?: LagCompensation<P>; tally: Tally } = { tally: { shots: 0, lag: 0, now: 0 } };
  const systems = defineSystems(protocol, [
    system.server('patrol', (world, ctx) => {
      for (const t of world.query('target')) t.components.position.x = targetX(ctx.tick, t.components.speed);
    }),
    system.server('shoot', (world, ctx) => {
      const lag = holder.lag;
      if (!lag) return;
      for (const s of world.query('shooter')) {
        const input = ctx.input(s);
        if (input.fire === 0) continue;
        const origin = s.components.position;
        // The view this client showed when it sampled the firing input (kept by the engine per input tick).
        const view = ctx.interpolationView(s) ?? s.owner;
        const rewound = lag.raycast(view, origin, input.aim, 100, { ignore: s });
        const now = lag.raycastNow(origin, input.aim, 100, { ignore: s });
        holder.tally.shots++;
        if (rewound?.ghost.type === 'target') holder.tally.lag++;
        if (now?.ghost.type === 'target') holder.tally.now++;
      }
    }),
  ]);
  return { holder, systems, nc: createNetcode(protocol, systems) };
}
type Game = ReturnType<typeof makeGame>;

/** Aims at the target where this client draws it and presses `fire` every `shotFrames` frames; draws a fading tracer. */
function Gun({ game, shotFrames }: { game: Game; shotFrames: number }): ReactNode {
  const me = game.nc.useLocalGhost('shooter');
  const targets = game.nc.useGhosts('target');
  const { client } = game.nc.useNetcode();
  const tracer = useRef<Mesh>(null);
  const [state] = useState(() => ({ frame: 0, fade: 0 }));
  useFrame((_, delta) => {
    const target = targets[0];
    const t = tracer.current;
    if (t) {
      state.fade = Math.max(0, state.fade - delta * 4);
      t.visible = state.fade > 0;
    }
    if (!me || !target || !client.prediction) return;
    if (++state.frame % shotFrames !== 0) return;
    const p = client.view(target).position as Vec3;
    const d = { x: p.x - SHOOTER.x, y: p.y - SHOOTER.y, z: p.z - SHOOTER.z };
    const len = Math.hypot(d.x, d.y, d.z);
    client.input.current.aim = { x: d.x / len, y: d.y / len, z: d.z / len };
    client.input.press('fire');
    if (t) {
      t.position.set((SHOOTER.x + p.x) / 2, (SHOOTER.y + p.y) / 2, 0);
      t.scale.set(1, len, 1);
      t.quaternion.setFromUnitVectors(new Vector3(0, 1, 0), new Vector3(d.x / len, d.y / len, d.z / len));
      state.fade = 1;
    }
  });
  return (
    <>
      <mesh ref={tracer} visible={false}>
        <cylinderGeometry args={[0.03, 0.03, 1, 6]} />
        <meshBasicMaterial color="#fdd835" />
      </mesh>
      {me && (
        <VisualProxy ghost={me}>
          <mesh>
            <coneGeometry args={[0.4, 0.8, 16]} />
            <meshStandardMaterial color="#1e88e5" />
          </mesh>
          <Probe name="shooter" />
        </VisualProxy>
      )}
      {targets.map((t) => (
        <VisualProxy key={t.handle} ghost={t}>
          <mesh>
            <sphereGeometry args={[RADIUS, 24, 16]} />
            <meshStandardMaterial color="#e53935" />
          </mesh>
          <Probe name="target" />
        </VisualProxy>
      ))}
    </>
  );
}

function Readout(): ReactNode {
  return usePolledText(() => {
      const f = window.__story?.figure as Record<string, number> | undefined;
      if (!f?.shots) return;
      const pct = (n: number): string => `${((100 * n) / f.shots!).toFixed(0)} %`;
      return (`shots ${f.shots} · hits with lag compensation ${f.hitsWith} (${pct(f.hitsWith!)}) · without ${f.hitsWithout} (${pct(f.hitsWithout!)})`);
    return undefined;
  }, 'connecting…');
}

function LagCompensationStory(args: Args): ReactNode {
  const game = useMemo(() => makeGame(), []);
  const scene = useLoopbackScene(() => ({
    protocol,
    systems: game.systems,
    setup: (server) => {
      game.holder.lag = createLagCompensation(server, { colliders: { shooter: { shape: { sphere: 0.4 } }, target: { shape: { sphere: RADIUS } } } });
      server.spawn('target', { position: { x: targetX(0, args.speed), y: TARGET_Y, z: 0 }, speed: args.speed });
      server.events.on('join', (c) => void server.spawn('shooter', { position: SHOOTER }, { owner: c.networkId }));
    },
  }));
  useEffect(() => {
    const id = setInterval(() => {
      const t = game.holder.tally;
      reportFigure({ shots: t.shots, hitsWith: t.lag, hitsWithout: t.now, withRate: t.shots ? t.lag / t.shots : 0, withoutRate: t.shots ? t.now / t.shots : 0 });
    }, 100);
    return () => clearInterval(id);
  }, [game]);
  return (
    <SplitView
      description={
        <>
          <b>Lag compensation.</b> The blue shooter fires every {args.shotFrames} frames, aimed exactly at the red target where this client draws it: interpolated, so{' '}
          {args.rttMs / 2} ms + the interpolation delay behind the server (right, purple). The server casts each shot rewound to the client&apos;s view (
          <code>createLagCompensation(server).raycast(ctx.interpolationView(shooter), …)</code>) and at the present (<code>raycastNow</code>): with compensation the shots
          land, without they hit only where the target turns.
        </>
      }
    >
      {scene && (
        <>
          <Panel title="Client — what the shooter sees and aims at" caption={<Readout />}>
            <game.nc.NetcodeProvider clock={scene.clientClock} transport={scene.transport(linkConditions(args))} join={{}}>
              <StoryCanvas>
                <NetcodeFrame now={scene.frameNow} />
                <Gun game={game} shotFrames={args.shotFrames} />
              </StoryCanvas>
            </game.nc.NetcodeProvider>
          </Panel>
          <Panel title="Server — the present (where raycastNow looks)">
            <StoryCanvas>
              <ServerGhosts server={scene.server} type="target">
                {() => (
                  <mesh>
                    <sphereGeometry args={[RADIUS, 24, 16]} />
                    <meshStandardMaterial color="#8e24aa" />
                  </mesh>
                )}
              </ServerGhosts>
              <ServerGhosts server={scene.server} type="shooter">
                {() => (
                  <mesh>
                    <coneGeometry args={[0.4, 0.8, 16]} />
                    <meshStandardMaterial color="#8e24aa" />
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
  title: 'Lag compensation/Lag compensation',
  component: LagCompensationStory,
  render: (args) => <LagCompensationStory key={argsKey(args)} {...args} />,
  args: { ...linkArgs, rttMs: 150, jitterMs: 0, loss: 0, speed: 5, shotFrames: 10 },
  argTypes: {
    ...linkArgTypes,
    speed: { control: { type: 'range', min: 1, max: 10, step: 0.5 }, description: 'Target speed, m/s' },
    shotFrames: { control: { type: 'range', min: 5, max: 60, step: 1 }, description: 'Display frames between automatic shots' },
  },
  parameters: { docs: { description: { component: 'Shots at an interpolated target, cast by the server rewound to the shooter’s view and at the present.' } } },
} satisfies Meta<typeof LagCompensationStory>;

export default meta;
type Story = StoryObj<typeof meta>;

export const LagCompensationDemo: Story = { name: 'Lag compensation' };
