// The 3D view: the static level (the same boxes the physics builds), players,
// grenades and balls at their rendered (smoothed) transforms via <VisualProxy>,
// the ball prediction switching, explosion effects, a camera following the local
// player, and the input bindings.
import { Canvas, useFrame } from '@react-three/fiber';
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Vector3, type Group, type Mesh, type MeshBasicMaterial, type MeshStandardMaterial } from 'three';
import { FrameCostProbe } from './frame-cost.tsx';
import { Pitch } from './Pitch.tsx';
import { NameTag } from './NameTag.tsx';
import { playExplosion, playKick } from './sound.ts';
import { NetcodeFrame, NetDebug, VisualProxy } from 'react-netcode/r3f';
import type { Ghost, Vec3 } from 'react-netcode';
import type { DemoProtocol } from '../shared/protocol.ts';
import { ARENA_HALF_SIZE, BALL_RADIUS, GRENADE_RADIUS, PLAYER_CENTRE_Y, PLAYER_HALF_HEIGHT, PLAYER_RADIUS, playerColour } from '../shared/systems.ts';
import { ballColour, DEBUG, DemoDebugHook, grenadeColour, recordExplosion } from './debug.tsx';
import { controls, useGhosts, useInput, useLocalGhost, useNetcode } from './netcode.ts';
import { getBallSettings, setLocalPrediction, subscribeBallSettings, switchBallsAround } from './switching.ts';
import { routeThreeConsole } from './three-console.ts';
import { touchStick } from './Touch.tsx';

routeThreeConsole();

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
    <Canvas shadows="percentage" camera={{ position: [0, 10, 13], fov: 45 }}>
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

const OFFSET = new Vector3(0, 9, 12);
const target = new Vector3();
const wanted = new Vector3();

/** Follows the local player's rendered position (priority 0: after VisualProxy wrote this frame's transforms). */
function FollowCamera(): ReactNode {
  const { client } = useNetcode();
  const local = useLocalGhost('player');
  useFrame(({ camera }, delta) => {
    if (local === undefined) return;
    const p = client.view(local).position as Vec3;
    target.set(p.x, p.y + 0.1, p.z);
    wanted.copy(target).add(OFFSET);
    camera.position.lerp(wanted, 1 - Math.exp(-8 * delta));
    camera.lookAt(target);
  });
  return null;
}
