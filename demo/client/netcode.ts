// The React layer bound to the demo's protocol and systems: typed hooks and
// input bindings, created once at module scope.
//
// Library imports: the demo is meant to read like user code ('react-netcode/react',
// 'react-netcode/r3f', …; demo/vite.config.ts aliases those to src/). They are
// written as relative src paths for now because tsconfig.json has no `paths` for the
// package name, so `tsc` would resolve the self-reference to dist/ and clash with the
// src types used by demo/shared.
import { createNetcode } from 'react-netcode/react';
import { protocol } from '../shared/protocol.ts';
import { systems } from '../shared/systems.ts';

export const {
  NetcodeProvider,
  useConnection,
  useGhosts,
  useLocalGhost,
  useInput,
  useNetcode,
  useNetStats,
  usePredictedSpawn,
  useSendRpc,
  keyboardAxes,
  pressOnKey,
  pressOnPointer,
} = createNetcode(protocol, systems);

/** WASD / arrows move, Space jumps, F or the right mouse button throws (held: 4 per second), B spawns a ball, E kicks. Created once (bindings re-bind when recreated). */
export const THROW_REPEAT_TICKS = 15; // at 60 Hz: a grenade every 0.25 s while the button is held
export const controls = [
  keyboardAxes({ up: ['KeyW', 'ArrowUp'], down: ['KeyS', 'ArrowDown'], left: ['KeyA', 'ArrowLeft'], right: ['KeyD', 'ArrowRight'] }),
  pressOnKey('Space', 'jump'),
  pressOnKey('KeyF', 'fire', { repeatEveryTicks: THROW_REPEAT_TICKS }),
  pressOnPointer('fire', { button: 2, repeatEveryTicks: THROW_REPEAT_TICKS }),
  pressOnKey('KeyB', 'spawnBall'),
  pressOnKey('KeyE', 'kick'),
];
