// The arena as drawn: the ground with mown stripes, white lines (halfway line, centre
// circle, goal lines, penalty boxes), the walls from shared/level.ts, and the goals in
// their defending team's colour with a white frame — all procedural geometry.
import type { ReactNode } from 'react';
import { ARENA_HALF_SIZE, GOAL_DEPTH, GOAL_HALF_WIDTH, LEVEL } from '../shared/level.ts';
import { TEAM_BLUE, TEAM_COLOURS, TEAM_RED } from '../shared/match.ts';
import { WALL_COLOUR } from './debug.tsx';

const H = ARENA_HALF_SIZE;
const STRIPES = 8;
const LINE = 0.12;
const LINE_Y = 0.015;

/** The goal at +x is blue's (red attacks it), the one at −x red's. */
function boxColour(name: string): string {
  if (name.startsWith('goal +x')) return TEAM_COLOURS[TEAM_BLUE];
  if (name.startsWith('goal -x')) return TEAM_COLOURS[TEAM_RED];
  return WALL_COLOUR;
}

function Line({ x, z, w, d }: { x: number; z: number; w: number; d: number }): ReactNode {
  return (
    <mesh rotation-x={-Math.PI / 2} position={[x, LINE_Y, z]}>
      <planeGeometry args={[w, d]} />
      <meshBasicMaterial color="#f4f4f4" />
    </mesh>
  );
}

function PenaltyBox({ side }: { side: 1 | -1 }): ReactNode {
  const depth = 5;
  const half = GOAL_HALF_WIDTH + 4;
  const x = side * (H - depth);
  return (
    <>
      <Line x={x} z={0} w={LINE} d={half * 2} />
      <Line x={side * (H - depth / 2)} z={half} w={depth} d={LINE} />
      <Line x={side * (H - depth / 2)} z={-half} w={depth} d={LINE} />
      {/* the goal line across the mouth, and the goal's floor in the team colour */}
      <Line x={side * H} z={0} w={LINE * 2} d={GOAL_HALF_WIDTH * 2} />
      <mesh rotation-x={-Math.PI / 2} position={[side * (H + GOAL_DEPTH / 2), LINE_Y - 0.005, 0]}>
        <planeGeometry args={[GOAL_DEPTH, GOAL_HALF_WIDTH * 2]} />
        <meshStandardMaterial color={TEAM_COLOURS[side > 0 ? TEAM_BLUE : TEAM_RED]} transparent opacity={0.35} />
      </mesh>
    </>
  );
}

export function Pitch(): ReactNode {
  const size = H * 2;
  const stripe = size / STRIPES;
  return (
    <group>
      {/* the stripes and the ground behind the goals tile the floor once: software WebGL pays for every overdrawn pixel */}
      {Array.from({ length: STRIPES }, (_, i) => (
        <mesh key={i} rotation-x={-Math.PI / 2} position={[-H + stripe * (i + 0.5), 0, 0]} receiveShadow>
          <planeGeometry args={[stripe, size + 6]} />
          <meshStandardMaterial color={i % 2 === 0 ? '#7a9a6a' : '#6f9160'} />
        </mesh>
      ))}
      {([1, -1] as const).map((side) => (
        <mesh key={side} rotation-x={-Math.PI / 2} position={[side * (H + (GOAL_DEPTH + 3) / 2), 0, 0]} receiveShadow>
          <planeGeometry args={[GOAL_DEPTH + 3, size + 6]} />
          <meshStandardMaterial color="#5f7d52" />
        </mesh>
      ))}
      <Line x={0} z={0} w={LINE} d={size} />
      <mesh rotation-x={-Math.PI / 2} position-y={LINE_Y}>
        <ringGeometry args={[3.5 - LINE / 2, 3.5 + LINE / 2, 48]} />
        <meshBasicMaterial color="#f4f4f4" />
      </mesh>
      <mesh rotation-x={-Math.PI / 2} position-y={LINE_Y}>
        <circleGeometry args={[0.2, 16]} />
        <meshBasicMaterial color="#f4f4f4" />
      </mesh>
      <PenaltyBox side={1} />
      <PenaltyBox side={-1} />
      {LEVEL.filter((box) => box.name !== 'ground').map((box) => (
        <mesh key={box.name} position={box.at as [number, number, number]} castShadow receiveShadow>
          <boxGeometry args={[box.half[0] * 2, box.half[1] * 2, box.half[2] * 2]} />
          <meshStandardMaterial color={boxColour(box.name)} />
        </mesh>
      ))}
    </group>
  );
}
