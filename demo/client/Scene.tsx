// The 3D view: the static level (the same boxes the physics builds), players,
// grenades and balls at their rendered (smoothed) transforms via <VisualProxy>,
// the ball prediction switching, explosion and goal effects (a flash, pooled particles),
// a camera keeping the local player and the nearest ball in view, and the input bindings.
import { Canvas, useFrame } from '@react-three/fiber';
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { PerspectiveCamera, Vector3, type Group, type Mesh, type MeshBasicMaterial, type MeshStandardMaterial } from 'three';
import { aimCamera, CAMERA_OFFSET, nearestInRange } from './camera.ts';
import { FrameCostProbe } from './frame-cost.tsx';
import { Pitch } from './Pitch.tsx';
import { BLAST_BURST, goalBurst } from './particles.ts';
import { burst, Particles } from './Particles.tsx';
import { NameTag } from './NameTag.tsx';
import { playExplosion, playKick } from './sound.ts';
import { hideR3fClockWarning, NetcodeFrame, NetDebug, VisualProxy } from 'react-netcode/r3f';
import type { Ghost, Vec3 } from 'react-netcode';
import type { DemoProtocol } from '../shared/protocol.ts';
import { GOAL_HALF_WIDTH, GOAL_HEIGHT } from '../shared/level.ts';
import { matchOf, PHASE_PLAYING, TEAM_BLUE, TEAM_COLOURS, TEAM_RED } from '../shared/match.ts';
import { ARENA_HALF_SIZE, BALL_RADIUS, GRENADE_RADIUS, PLAYER_CENTRE_Y, PLAYER_HALF_HEIGHT, PLAYER_RADIUS, playerColour } from '../shared/systems.ts';
import { ballColour, DEBUG, DemoDebugHook, grenadeColour, recordExplosion } from './debug.tsx';
import { controls, useGhosts, useInput, useLocalGhost, useNetcode } from './netcode.ts';
import { getBallSettings, setLocalPrediction, subscribeBallSettings, switchBallsAround } from './switching.ts';
import { touchStick } from './Touch.tsx';

hideR3fClockWarning(); // R3F's own THREE.Clock warns once per <Canvas> with three 0.187: not the demo's

/** The keys and mouse, then the touch stick (it overrides `move` while a finger holds it). */
const CONTROLS = [...controls, touchStick];

export interface SceneProps {
  /** <NetDebug> paths. */
  showDebug: boolean;
  /** Predict the local player and nearby balls (the network panel's toggle). */
  prediction: boolean;
  /** Draw through the smoothed view (off: the raw simulated state). */
  smoothing: boolean;
}

export function Scene({ showDebug, prediction, smoothing }: SceneProps): ReactNode {
  useInput(CONTROLS);
  useEffect(() => {
    // The right mouse button throws: keep the browser's context menu out of the way.
    const block = (e: Event): void => e.preventDefault();
    const kick = (e: KeyboardEvent): void => void (e.code === 'KeyE' && !e.repeat && playKick());
    window.addEventListener('contextmenu', block);
    window.addEventListener('keydown', kick);
    return () => {
      window.removeEventListener('contextmenu', block);
      window.removeEventListener('keydown', kick);
    };
  }, []);
  return (
    <Canvas shadows="percentage" camera={{ position: [CAMERA_OFFSET.x, CAMERA_OFFSET.y, CAMERA_OFFSET.z], fov: 45 }}>
      <NetcodeFrame />
      <FrameCostProbe />
      <color attach="background" args={['#9fc3e0']} />
      <fog attach="fog" args={['#9fc3e0', 30, 70]} />
      <hemisphereLight args={["#dceeff", "#5f7d52", 0.9]} />
      <ambientLight intensity={0.45} />
      <directionalLight
        position={[10, 20, 8]}
        intensity={1.6}
        castShadow
        shadow-mapSize={[2048, 2048]}
        shadow-camera-left={-ARENA_HALF_SIZE - 2}
        shadow-camera-right={ARENA_HALF_SIZE + 2}
        shadow-camera-top={ARENA_HALF_SIZE + 2}
        shadow-camera-bottom={-ARENA_HALF_SIZE - 2}
      />
      <Pitch />
      <LocalPrediction on={prediction} />
      <Players smoothed={smoothing} />
      <Grenades smoothed={smoothing} />
      <Balls smoothed={smoothing} prediction={prediction} />
      <Explosions />
      <GoalBursts />
      <Particles />
      <FollowCamera />
      {DEBUG && <DemoDebugHook />}
      <NetDebug visible={showDebug} />
    </Canvas>
  );
}

/** The prediction toggle: the local player predicted or interpolated (applied again when the local player respawns). */
function LocalPrediction({ on }: { on: boolean }): ReactNode {
  const { client } = useNetcode();
  const local = useLocalGhost('player');
  useEffect(() => {
    if (local !== undefined) setLocalPrediction(client, on);
  }, [client, local, on]);
  return null;
}

function Players({ smoothed }: { smoothed: boolean }): ReactNode {
  const players = useGhosts('player');
  const local = useLocalGhost('player');
  return players.map((p) => (
    <VisualProxy key={p.handle} ghost={p} smoothed={smoothed}>
      <PlayerBody ghost={p} local={p === local} />
    </VisualProxy>
  ));
}

/** Drawn around the capsule's centre (the ghost's position), as the physics shapes it. */
function PlayerBody({ ghost, local }: { ghost: Ghost<DemoProtocol, 'player'>; local: boolean }): ReactNode {
  const { client } = useNetcode();
  const facing = useRef<Group>(null);
  useFrame(() => {
    const view = client.view(ghost);
    if (facing.current !== null) facing.current.rotation.y = view.facing as number;
  });
  const colour = playerColour(ghost.components.colour);
  return (
    <group>
      <group ref={facing}>
        <mesh castShadow>
          <capsuleGeometry args={[PLAYER_RADIUS, PLAYER_HALF_HEIGHT * 2, 4, 12]} />
          <meshStandardMaterial color={colour} emissive={colour} emissiveIntensity={0.35} />
        </mesh>
        {/* the nose shows the facing = the throw direction */}
        <mesh position={[0, 0.4, 0.4]} castShadow>
          <boxGeometry args={[0.3, 0.15, 0.3]} />
          <meshStandardMaterial color="#222" />
        </mesh>
      </group>
      <NameTag name={ghost.components.name} colour={colour} />
      {local && (
        <mesh rotation-x={-Math.PI / 2} position-y={0.02 - PLAYER_CENTRE_Y}>
          <ringGeometry args={[0.6, 0.75, 32]} />
          <meshBasicMaterial color="#ffffff" />
        </mesh>
      )}
    </group>
  );
}

function Grenades({ smoothed }: { smoothed: boolean }): ReactNode {
  const grenades = useGhosts('grenade');
  return grenades.map((g) => (
    <VisualProxy key={g.handle} ghost={g} smoothed={smoothed}>
      <GrenadeBody ghost={g} />
    </VisualProxy>
  ));
}

function GrenadeBody({ ghost }: { ghost: Ghost<DemoProtocol, 'grenade'> }): ReactNode {
  const material = useRef<MeshStandardMaterial>(null);
  // origin changes in place when the server's ghost adopts the prediction: recolour per frame.
  useFrame(() => {
    material.current?.color.set(grenadeColour(ghost));
  });
  return (
    <mesh castShadow>
      <sphereGeometry args={[GRENADE_RADIUS, 16, 12]} />
      <meshStandardMaterial ref={material} color={grenadeColour(ghost)} />
    </mesh>
  );
}

/** Dynamic balls, rolling (rotation from the physics). Near the local player they are predicted (tinted), elsewhere interpolated. */
function Balls({ smoothed, prediction }: { smoothed: boolean; prediction: boolean }): ReactNode {
  const balls = useGhosts('ball');
  const { client } = useNetcode();
  const local = useLocalGhost('player');
  const settings = useSyncExternalStore(subscribeBallSettings, getBallSettings); // the tuning panel's, once it is loaded
  // The client switches balls by the local player's shown position, once per frame (after the netcode step).
  const { radius, margin } = settings;
  useEffect(() => {
    if (local === undefined || !prediction) return undefined;
    return switchBallsAround(client, () => client.view(local).position as Vec3, { radius, margin });
  }, [client, local, radius, margin, prediction]);
  return balls.map((b) => (
    <VisualProxy key={b.handle} ghost={b} smoothed={smoothed}>
      <BallBody ghost={b} tint={settings.tint} />
    </VisualProxy>
  ));
}

function BallBody({ ghost, tint }: { ghost: Ghost<DemoProtocol, 'ball'>; tint: boolean }): ReactNode {
  const { client } = useNetcode();
  const material = useRef<MeshStandardMaterial>(null);
  const switchedAt = useRef(-Infinity);
  useEffect(() => client.ghosts.events.on('mode', (g) => void (g === ghost && (switchedAt.current = performance.now()))), [client, ghost]);
  useFrame(() => {
    material.current?.color.set(ballColour(ghost, tint, performance.now() - switchedAt.current));
  });
  return (
    <group>
      <mesh castShadow>
        <sphereGeometry args={[BALL_RADIUS, 24, 16]} />
        <meshStandardMaterial ref={material} color={ballColour(ghost, tint, Infinity)} />
      </mesh>
      {/* a band, so the rolling shows */}
      <mesh rotation-x={Math.PI / 2}>
        <torusGeometry args={[BALL_RADIUS * 1.01, 0.04, 8, 32]} />
        <meshStandardMaterial color="#5d4037" />
      </mesh>
    </group>
  );
}

interface Blast {
  key: number;
  at: Vec3;
  start: number;
}
const BLAST_MS = 600;

/**
 * One expanding, fading sphere per exploded grenade: on the despawn of a grenade the
 * server confirmed (a rejected prediction never exploded), at its last position. A
 * ghost despawns once, so each grenade plays once.
 */
function Explosions(): ReactNode {
  const { client } = useNetcode();
  const [blasts, setBlasts] = useState<Blast[]>([]);
  useEffect(() => {
    let key = 0;
    return client.ghosts.events.on('despawn', (g) => {
      if (g.type !== 'grenade' || g.origin === 'predicted') return;
      const { position: p, spawnId } = (g as Ghost<DemoProtocol, 'grenade'>).components;
      const blast = { key: key++, at: { x: p.x, y: p.y, z: p.z }, start: performance.now() };
      setBlasts((list) => [...list, blast]);
      burst(blast.at, BLAST_BURST);
      playExplosion();
      if (DEBUG) recordExplosion(spawnId, blast.at);
    });
  }, [client]);
  const done = (key: number): void => setBlasts((list) => list.filter((b) => b.key !== key));
  return blasts.map((b) => <BlastSphere key={b.key} blast={b} onDone={done} />);
}

function BlastSphere({ blast, onDone }: { blast: Blast; onDone: (key: number) => void }): ReactNode {
  const mesh = useRef<Mesh>(null);
  const material = useRef<MeshBasicMaterial>(null);
  const finished = useRef(false);
  useFrame(() => {
    const u = (performance.now() - blast.start) / BLAST_MS;
    if (u >= 1) {
      if (!finished.current) onDone(blast.key);
      finished.current = true;
      return;
    }
    mesh.current?.scale.setScalar(0.3 + 3 * u);
    if (material.current) material.current.opacity = 0.8 * (1 - u);
  });
  return (
    <mesh ref={mesh} position={[blast.at.x, blast.at.y, blast.at.z]} scale={0.3}>
      <sphereGeometry args={[1, 24, 16]} />
      <meshBasicMaterial ref={material} color="#ffab40" transparent opacity={0.8} depthWrite={false} />
    </mesh>
  );
}

/**
 * Confetti where a ball went in: a ball that despawns during play past an end line, inside
 * the mouth (the server replaces a scoring ball at once), in the scoring team's colour.
 */
function GoalBursts(): ReactNode {
  const { client } = useNetcode();
  useEffect(
    () =>
      client.ghosts.events.on('despawn', (g) => {
        if (g.type !== 'ball' || matchOf(client.world)?.phase !== PHASE_PLAYING) return;
        const p = (g as Ghost<DemoProtocol, 'ball'>).components.position;
        if (Math.abs(p.x) < ARENA_HALF_SIZE - BALL_RADIUS || Math.abs(p.z) > GOAL_HALF_WIDTH || p.y > GOAL_HEIGHT) return;
        const team = p.x > 0 ? TEAM_RED : TEAM_BLUE; // red attacks +x
        burst({ x: Math.sign(p.x) * ARENA_HALF_SIZE, y: Math.max(p.y, 0.5), z: p.z }, goalBurst(parseInt(TEAM_COLOURS[team].slice(1), 16)));
      }),
    [client],
  );
  return null;
}

const focus = new Vector3();
const wanted = new Vector3();
const shownFocus = new Vector3();
const probe = new PerspectiveCamera();
const ball = { x: 0, y: 0, z: 0 };
const ballViews: Vec3[] = [];

/**
 * Keeps the local player and the ball nearest to it in view (camera.ts: looks between them,
 * pulled back as far as both need), easing towards that aim. Priority 0: after VisualProxy
 * wrote this frame's transforms, so it reads the drawn positions.
 */
function FollowCamera(): ReactNode {
  const { client } = useNetcode();
  const local = useLocalGhost('player');
  const aimed = useRef(false);
  useFrame(({ camera }, delta) => {
    if (local === undefined) return;
    const p = client.view(local).position as Vec3;
    let n = 0;
    for (const b of client.world.query('ball')) {
      const v = client.view(b).position as Vec3;
      const slot = ballViews[n] ?? (ballViews[n] = { x: 0, y: 0, z: 0 });
      slot.x = v.x;
      slot.y = v.y;
      slot.z = v.z;
      n++;
    }
    ballViews.length = Math.min(ballViews.length, n);
    const found = nearestInRange(p, ballViews, ball);
    const cam = camera as PerspectiveCamera;
    probe.fov = cam.fov;
    probe.aspect = cam.aspect;
    probe.updateProjectionMatrix();
    aimCamera(p, found ? ball : undefined, probe, focus, wanted);
    const k = 1 - Math.exp(-6 * delta);
    if (aimed.current) shownFocus.lerp(focus, k);
    else shownFocus.copy(focus);
    aimed.current = true;
    camera.position.lerp(wanted, k);
    camera.lookAt(shownFocus);
  });
  return null;
}
