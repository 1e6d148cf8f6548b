// Predicted spawning, shared pieces: the spawnId helper (NFE grenade sample:
// owner slot << 16 | InputEvent count) and the classifiers that pair a ghost
// arriving in a snapshot with the client's predicted spawn of it.

import type { Tick } from './clock/tick.ts';
import { tickDiff } from './clock/tick.ts';
import type { Ghost } from './world.ts';

/**
 * `((ownerSlot & 0xffff) << 16 | (count & 0xffff)) >>> 0`: unique per owner and press while
 * fewer than 65,536 presses are in flight. The owner slot is the networkId (16 bits,
 * quarantined before reuse); `count` is the InputEvent's absolute count (for several
 * presses in one tick: count, count − 1, …). `>>> 0` keeps slots above 32767 positive.
 */
export function spawnId(ownerSlot: number, count: number): number {
  return (((ownerSlot & 0xffff) << 16) | (count & 0xffff)) >>> 0;
}

const NO_IDS: readonly number[] = Object.freeze([]);

/**
 * The spawnIds of `presses` presses of one InputEvent in one tick whose running count is now
 * `count`, oldest press first: spawnId(owner, count − presses + 1) … spawnId(owner, count).
 * Allocates only when there are presses (a frozen empty array otherwise).
 */
export function pressSpawnIds(ownerSlot: number, count: number, presses: number): readonly number[] {
  if (!(presses > 0)) return NO_IDS;
  const ids = new Array<number>(presses);
  for (let i = 0; i < presses; i++) ids[i] = spawnId(ownerSlot, count - (presses - 1 - i));
  return ids;
}

/** The owner slot of a spawnId. */
export function spawnIdOwner(id: number): number {
  return id >>> 16;
}

/** A ghost that arrived in a snapshot, before it joins the client's world. */
export interface SpawnCandidate {
  readonly id: number;
  readonly type: string;
  readonly owner: number;
  /** The server tick it was spawned at. */
  readonly spawnTick: Tick;
  readonly values: Readonly<Record<string, unknown>>;
}

/** A predicted spawn awaiting its server twin. */
export interface PredictedSpawnInfo {
  readonly ghost: Ghost;
  readonly type: string;
  readonly owner: number;
  readonly spawnTick: Tick;
  /**
   * When classifying: the server tick by which the press that spawned it had run, by the server's input reports (its
   * spawn tick when our input arrived in time; later when it missed its tick, and the server ran the press with a
   * later input); undefined while the reports do not tell and are overdue (none written in the Ping period and
   * graceTicks before the arriving ghost's spawn tick: the press may have run late).
   */
  readonly ranBy?: Tick | undefined;
}

/**
 * Pairs a new snapshot ghost with one of our predicted spawns of its type. Returns the
 * predicted spawn to adopt, `'notOurs'` to mark the ghost classified (no other matcher
 * may pair it), or undefined to fall back to the default matcher.
 */
export type SpawnClassifier = (candidate: SpawnCandidate, predicted: readonly PredictedSpawnInfo[], localNetworkId: number) => PredictedSpawnInfo | 'notOurs' | undefined;

/**
 * The default: same type (the caller filters) and owner, spawn ticks less than
 * `windowTicks` apart (default 5); the closest tick wins, the older spawn on a tie.
 * A server spawn later than that still matches while the press may have run late: up
 * to `windowTicks` past `ranBy`, or at any later tick while the reports do not tell.
 * Two spawns of one type in one tick are indistinguishable to it: use spawnIdClassifier.
 */
export function tickWindowClassifier(windowTicks = 5): SpawnClassifier {
  return (candidate, predicted) => {
    let best: PredictedSpawnInfo | undefined;
    let bestDistance = Infinity;
    for (const p of predicted) {
      if (p.owner !== candidate.owner) continue;
      const signed = tickDiff(candidate.spawnTick, p.spawnTick);
      const d = Math.abs(signed);
      const late = signed > 0 && (p.ranBy === undefined || signed < tickDiff(p.ranBy, p.spawnTick) + windowTicks);
      if ((d < windowTicks || late) && d < bestDistance) {
        best = p;
        bestDistance = d;
      }
    }
    return best;
  };
}

/**
 * Match by a replicated spawnId field (the NFE grenade sample): a ghost whose spawnId's owner
 * slot is not ours is classified 'notOurs' (so it can never be mis-paired with our spawns);
 * ours is matched to the predicted spawn with the same spawnId.
 */
export function spawnIdClassifier(field = 'spawnId'): SpawnClassifier {
  return (candidate, predicted, localNetworkId) => {
    const id = candidate.values[field];
    if (typeof id !== 'number') return undefined;
    if (spawnIdOwner(id) !== (localNetworkId & 0xffff)) return 'notOurs';
    for (const p of predicted) if ((p.ghost.components as Record<string, unknown>)[field] === id) return p;
    return 'notOurs'; // ours, but not predicted (or already matched): never pair it by tick
  };
}
