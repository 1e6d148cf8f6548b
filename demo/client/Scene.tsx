// The 3D view: ground, players and grenades at their rendered (smoothed) transforms via
// <VisualProxy>, a camera following the local player, and the input bindings.
import { Canvas, useFrame } from '@react-three/fiber';
import { useEffect, useRef, type ReactNode } from 'react';
import { Vector3, type Group, type MeshStandardMaterial } from 'three';
import { NetcodeFrame, NetDebug, VisualProxy } from 'react-netcode/r3f';
import type { Ghost, Vec3 } from 'react-netcode';
import type { DemoProtocol } from '../shared/protocol.ts';
import { ARENA_HALF_SIZE, BALL_RADIUS, GRENADE_RADIUS, playerColour } from '../shared/systems.ts';
import { BALL_COLOUR, DEBUG, DemoDebugHook, grenadeColour } from './debug.tsx';
import { controls, useGhosts, useInput, useLocalGhost, useNetcode } from './netcode.ts';

export function Scene({ showDebug }: { showDebug: boolean }): ReactNode {
  useInput(controls);
  useEffect(() => {
    // The right mouse button throws: keep the browser's context menu out of the way.
    const block = (e: Event): void => e.preventDefault();
    window.addEventListener('contextmenu', block);
    return () => window.removeEventListener('contextmenu', block);
  }, []);
  return (
    <Canvas shadows camera={{ position: [0, 8, 10], fov: 60 }}>
      <NetcodeFrame />
      <color attach="background" args={['#9fc3e0']} />
      <fog attach="fog" args={['#9fc3e0', 30, 70]} />
      <ambientLight intensity={0.7} />
      <directionalLight
        position={[10, 20, 8]}
        intensity={1.6}
        castShadow
        shadow-mapSize={[2048, 2048]}
        shadow-camera-left={-ARENA_HALF_SIZE}
        shadow-camera-right={ARENA_HALF_SIZE}
        shadow-camera-top={ARENA_HALF_SIZE}
        shadow-camera-bottom={-ARENA_HALF_SIZE}
      />
      <Ground />
      <Players />
      <Grenades />
      <Balls />
      <FollowCamera />
      {DEBUG && <DemoDebugHook />}
      <NetDebug visible={showDebug} />
    </Canvas>
  );
}

function Ground(): ReactNode {
  const size = ARENA_HALF_SIZE * 2;
  return (
    <group>
      <mesh rotation-x={-Math.PI / 2} receiveShadow>
        <planeGeometry args={[size + 1, size + 1]} />
        <meshStandardMaterial color="#7a9a6a" />
      </mesh>
      <gridHelper args={[size, size / 2, '#3f5a38', '#5f7d52']} position-y={0.01} />
    </group>
  );
}

function Players(): ReactNode {
  const players = useGhosts('player');
  const local = useLocalGhost('player');
  return players.map((p) => (
    <VisualProxy key={p.handle} ghost={p}>
      <PlayerBody ghost={p} local={p === local} />
    </VisualProxy>
  ));
}

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
        <mesh position-y={0.9} castShadow>
          <capsuleGeometry args={[0.4, 1, 4, 12]} />
          <meshStandardMaterial color={colour} />
        </mesh>
        {/* the nose shows the facing = the throw direction */}
        <mesh position={[0, 1.3, 0.4]} castShadow>
          <boxGeometry args={[0.3, 0.15, 0.3]} />
          <meshStandardMaterial color="#222" />
        </mesh>
      </group>
      {local && (
        <mesh rotation-x={-Math.PI / 2} position-y={0.02}>
          <ringGeometry args={[0.6, 0.75, 32]} />
          <meshBasicMaterial color="#ffffff" />
        </mesh>
      )}
    </group>
  );
}

function Grenades(): ReactNode {
  const grenades = useGhosts('grenade');
  return grenades.map((g) => (
    <VisualProxy key={g.handle} ghost={g}>
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

/** Server-spawned balls that grenade blasts push around (interpolated for everyone). */
function Balls(): ReactNode {
  const balls = useGhosts('ball');
  return balls.map((b) => (
    <VisualProxy key={b.handle} ghost={b}>
      <mesh castShadow>
        <sphereGeometry args={[BALL_RADIUS, 24, 16]} />
        <meshStandardMaterial color={BALL_COLOUR} />
      </mesh>
    </VisualProxy>
  ));
}

const OFFSET = new Vector3(0, 7, 9);
const target = new Vector3();
const wanted = new Vector3();

/** Follows the local player's rendered position (priority 0: after VisualProxy wrote this frame's transforms). */
function FollowCamera(): ReactNode {
  const { client } = useNetcode();
  const local = useLocalGhost('player');
  useFrame(({ camera }, delta) => {
    if (local === undefined) return;
    const p = client.view(local).position as Vec3;
    target.set(p.x, p.y + 1, p.z);
    wanted.copy(target).add(OFFSET);
    camera.position.lerp(wanted, 1 - Math.exp(-8 * delta));
    camera.lookAt(target);
  });
  return null;
}
