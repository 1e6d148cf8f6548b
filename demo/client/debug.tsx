// Debug hook for tests and manual poking: only with `?debug` in the URL (e.g.
// `/?name=ann&debug`) does the demo put `window.__demo` on the page. Without it
// nothing is installed, so normal players pay nothing and expose nothing.
//
// window.__demo = {
//   client,                    the netcode client (read-only use, please)
//   ghosts(type)               → [{ id, handle, owner, origin, mode, spawnId?, colour, position }]
//   press(field)               presses an input event ('fire', 'jump', 'kick', 'spawnBall') as its key would
//   project(id)                → { x, y } of the ghost's rendered position in CSS px (page coordinates)
//   colourOf(id)               → the CSS colour the demo paints that ghost with
//   events                     → [{ kind, spawnId, t }] grenade lifecycle in order:
//                                'predicted spawn', 'snapshot containing the ghost', 'matched', 'despawn'
//   grenadeColours             → { [spawnId]: colours shown per frame, deduplicated in order }
//   explosions                 → [{ spawnId, at, t }] explosion effects played (one per grenade)
//   particles()                → sparks alive now (explosions and goals, Particles.tsx)
//   modes                      → [{ id, type, mode, t }] prediction switches, in order
//   frames                     → frames rendered so far
//   fps()                      → frames per second over the last 2 s of rendered frames
//   longFrames                 → [{ t, ms }] every frame that came more than 100 ms after the previous one (stalls)
//   corrections                → [{ ghostId, type, local, tick, fromTick, distance, cause, detail, t }]
//                                every correction of a predicted ghost's shown transform, with its cause
//   net()                      → { rttMs, jitterMs, interpolationDelayTicks, timeScale, clockJumps,
//                                  inputDelayTicks, inputsLate, inputsMissing, prediction stats,
//                                  spawns: { predicted, matched, rejected }, correctionsByCause }
// }
import { useFrame, useThree } from '@react-three/fiber';
import { useEffect, type ReactNode } from 'react';
import { Vector3 } from 'three';
import type { Correction, Ghost, SpawnClassifier, Vec3 } from 'react-netcode';
import type { DemoProtocol } from '../shared/protocol.ts';
import { playerColour } from '../shared/systems.ts';
import { frameCost, frameCostSplit, resetFrameCost } from './frame-cost.tsx';
import { useNetcode } from './netcode.ts';
import { particlesAlive } from './Particles.tsx';

export const DEBUG = typeof window !== 'undefined' && new URLSearchParams(window.location.search).has('debug');

/** Grenade colours: matched predicted spawns by spawnId parity, server-only spawns black, unconfirmed predictions white. */
export const GRENADE_COLOURS = { even: '#2e7d32', odd: '#c62828', snapshot: '#000000', predicted: '#ffffff' } as const;

export function grenadeColour(ghost: Ghost<DemoProtocol, 'grenade'>): string {
  if (ghost.origin === 'matched') return ghost.components.spawnId % 2 === 0 ? GRENADE_COLOURS.even : GRENADE_COLOURS.odd;
  if (ghost.origin === 'predicted') return GRENADE_COLOURS.predicted;
  return GRENADE_COLOURS.snapshot;
}

/** Balls: orange while interpolated; with the tint on, lime while predicted and white for the first 250 ms after a switch. */
export const BALL_COLOURS = { interpolated: '#ff9800', predicted: '#b2ff59', switched: '#ffffff' } as const;
export const SWITCH_FLASH_MS = 250;
export const WALL_COLOUR = '#8d6e63';

export function ballColour(ghost: Ghost<DemoProtocol, 'ball'>, tint = true, sinceSwitchMs = Infinity): string {
  if (!tint) return BALL_COLOURS.interpolated;
  if (sinceSwitchMs < SWITCH_FLASH_MS) return BALL_COLOURS.switched;
  return ghost.mode === 'predicted' ? BALL_COLOURS.predicted : BALL_COLOURS.interpolated;
}

/** The colour the scene paints a ghost with (balls: outside the switch flash). */
export function ghostColour(ghost: Ghost<DemoProtocol>): string {
  if (ghost.type === 'grenade') return grenadeColour(ghost as Ghost<DemoProtocol, 'grenade'>);
  if (ghost.type === 'player') return playerColour((ghost as Ghost<DemoProtocol, 'player'>).components.colour);
  if (ghost.type === 'ball') return ballColour(ghost as Ghost<DemoProtocol, 'ball'>);
  return '#000000';
}

/** Height above the ghost's position of the point `project` returns (the middle of the visible body; a player's position is its capsule's centre). */
const CENTRE_Y: Record<string, number> = { player: 0, grenade: 0, ball: 0 };

interface ExplosionRecord {
  spawnId: number;
  at: Vec3;
  t: number;
}

/** Called by the scene for each explosion effect it plays (only with DEBUG). */
export function recordExplosion(spawnId: number, at: Vec3): void {
  (window as unknown as { __demo?: { explosions: ExplosionRecord[] } }).__demo?.explosions.push({ spawnId, at: { ...at }, t: performance.now() });
}

interface DebugEvent {
  kind: 'predicted spawn' | 'snapshot containing the ghost' | 'matched' | 'despawn';
  spawnId: number;
  t: number;
  /** Where the grenade was (despawn: where it exploded, as last replicated). */
  at?: Vec3;
}

/** Frame times kept for `fps()`: enough for 2 s at 240 fps. */
const FRAME_TIMES = 512;
const FPS_WINDOW_MS = 2000;
/** A frame this long after the previous one is recorded in `longFrames`. */
const LONG_FRAME_MS = 100;

/** Mount inside the <Canvas> when DEBUG is true. */
export function DemoDebugHook(): ReactNode {
  const { client } = useNetcode();
  const camera = useThree((s) => s.camera);
  const canvas = useThree((s) => s.gl.domElement);

  useEffect(() => {
    const events: DebugEvent[] = [];
    const grenadeColours: Record<number, string[]> = {};
    const log = (kind: DebugEvent['kind'], spawnId: number, at?: Vec3): void => void events.push({ kind, spawnId, t: performance.now(), ...(at && { at: { x: at.x, y: at.y, z: at.z } }) });
    const offSpawn = client.ghosts.events.on('spawn', (g) => {
      if (g.type === 'grenade' && g.origin === 'predicted') log('predicted spawn', (g as Ghost<DemoProtocol, 'grenade'>).components.spawnId);
    });
    const offMatched = client.ghosts.events.on('matched', (g) => {
      if (g.type === 'grenade') log('matched', (g as Ghost<DemoProtocol, 'grenade'>).components.spawnId);
    });
    const modes: { id: number; type: string; mode: string; t: number }[] = [];
    const offMode = client.ghosts.events.on('mode', (g, mode) => void modes.push({ id: g.id, type: g.type, mode, t: performance.now() }));
    const offDespawn = client.ghosts.events.on('despawn', (g) => {
      if (g.type === 'grenade') log('despawn', (g as Ghost<DemoProtocol, 'grenade'>).components.spawnId, (g as Ghost<DemoProtocol, 'grenade'>).components.position);
    });
    // The classifier is asked about every new grenade a snapshot brings: log, then delegate.
    const spy: SpawnClassifier = (candidate, predicted, localNetworkId) => {
      const id = candidate.values.spawnId;
      if (typeof id === 'number') log('snapshot containing the ghost', id);
      return inner?.(candidate, predicted, localNetworkId);
    };
    const inner: SpawnClassifier | undefined = client.spawns.setClassifier('grenade', spy); // spy runs only later, on snapshots
    const corrections: (Correction & { t: number })[] = [];
    const offCorrection = client.events.on('correction', (c) => void corrections.push({ ...c, t: performance.now() }));
    const frameTimes: number[] = [];
    const pos = new Vector3();
    const api = {
      client,
      events,
      grenadeColours,
      explosions: [] as ExplosionRecord[],
      particles: particlesAlive,
      modes,
      frames: 0,
      frameTimes,
      longFrames: [] as { t: number; ms: number }[],
      corrections,
      fps: () => {
        const now = performance.now();
        let n = 0;
        let first = now;
        for (let i = frameTimes.length - 1; i >= 0 && now - frameTimes[i]! <= FPS_WINDOW_MS; i--, n++) first = frameTimes[i]!;
        return n < 2 ? 0 : ((n - 1) * 1000) / (now - first);
      },
      net: () => ({
        rttMs: client.clock.rttMs,
        jitterMs: client.clock.jitterMs,
        interpolationDelayTicks: client.ghosts.timeline.delayTicks,
        timeScale: client.clock.timeScale,
        clockJumps: client.clock.jumps,
        inputDelayTicks: client.clock.inputDelayTicks,
        inputsLate: client.inputReports.late,
        inputsMissing: client.inputReports.missing,
        prediction: client.prediction ? { ...client.prediction.stats } : undefined,
        spawns: { ...client.spawns.stats },
        correctionsByCause: { ...client.corrections.byCause },
      }),
      press: (name: 'fire' | 'jump' | 'kick' | 'spawnBall') => client.input.press(name),
      ghosts: (type: string) =>
        [...client.world.query(type as 'player')].map((g) => ({
          id: g.id,
          handle: g.handle,
          owner: g.owner,
          origin: g.origin,
          mode: g.mode,
          spawnId: (g.components as { spawnId?: number }).spawnId,
          position: { ...(g.components as { position: Vec3 }).position },
          colour: ghostColour(g),
        })),
      frameCost,
      frameCostSplit,
      resetFrameCost,
      colourOf: (id: number) => {
        const g = client.world.get(id);
        return g ? ghostColour(g) : undefined;
      },
      project: (id: number) => {
        const g = client.world.get(id);
        if (!g || g.type === 'config' || g.type === 'match') return undefined;
        const p = client.view(g).position;
        pos.set(p.x, p.y + (CENTRE_Y[g.type] ?? 0), p.z).project(camera);
        const rect = canvas.getBoundingClientRect();
        return { x: rect.left + ((pos.x + 1) / 2) * rect.width, y: rect.top + ((1 - pos.y) / 2) * rect.height };
      },
    };
    (window as unknown as { __demo?: typeof api }).__demo = api;
    return () => {
      offSpawn();
      offMatched();
      offDespawn();
      offMode();
      offCorrection();
      const current = client.spawns.setClassifier('grenade', inner);
      if (current !== spy) client.spawns.setClassifier('grenade', current); // someone else replaced it since: leave theirs
      delete (window as unknown as { __demo?: typeof api }).__demo;
    };
  }, [client, camera, canvas]);

  useFrame(() => {
    const api = (window as unknown as { __demo?: { frames: number; frameTimes: number[]; longFrames: { t: number; ms: number }[]; grenadeColours: Record<number, string[]> } }).__demo;
    if (!api) return;
    api.frames++;
    const now = performance.now();
    const previous = api.frameTimes[api.frameTimes.length - 1];
    if (previous !== undefined && now - previous > LONG_FRAME_MS) api.longFrames.push({ t: now, ms: now - previous });
    if (api.frameTimes.length >= FRAME_TIMES) api.frameTimes.shift();
    api.frameTimes.push(now);
    for (const g of client.world.query('grenade')) {
      const list = (api.grenadeColours[g.components.spawnId] ??= []);
      const c = grenadeColour(g);
      if (list[list.length - 1] !== c) list.push(c);
    }
  });
  return null;
}
