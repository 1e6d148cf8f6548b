// Which ghosts go into a snapshot: priority (importance × ticks since last sent to this connection) ranks
// the candidates and the budget is filled greedily from the top; predicted ghosts rank above all.

/** Bytes of a snapshot that are not ghost records: prefix (3), tick (4), counts and flags. */
export const SNAPSHOT_OVERHEAD_BYTES = 10;
/** Importance is clamped to [1/256, 256]; the age to 65,535 ticks. */
export const MAX_IMPORTANCE = 256;
export const MAX_AGE_TICKS = 0xffff;
/** Priority of a ghost the recipient predicts: above any accumulated priority. */
export const PREDICTED_PRIORITY = MAX_IMPORTANCE * MAX_AGE_TICKS * 2;

const IDX = 2 ** 21; // candidate index field of a sort key

/**
 * Starvation bound, in snapshots, for G ghosts of equal importance whose records average `avgBytes` (nothing
 * predicted). Priority = importance × age serves them oldest first: a ghost just sent has at most G − 1 ahead,
 * and a full snapshot leaves under about two records unused, so carries budget − overhead − 2s bytes of them.
 * A ghost of importance i among ghosts of importance I waits about I / i times longer.
 */
export function maxWaitSnapshots(ghostCount: number, avgBytes: number, budgetBytes: number): number {
  const room = budgetBytes - SNAPSHOT_OVERHEAD_BYTES - 2 * avgBytes;
  if (ghostCount <= 0) return 0;
  if (!(room > 0)) return Infinity;
  return Math.ceil(((ghostCount - 1) * avgBytes) / room) + 1;
}

/** Greedy selection over the encoder's candidate arrays. */
export class Selector {
  private keys = new Float64Array(256);
  private sorted = 0;

  /** Mark in `sel` the candidates to send: all that fit, by descending priority; the top one always (none starves). */
  select(n: number, prio: Float64Array, bits: Int32Array, availBits: number, sel: Uint8Array): void {
    this.sorted = 0;
    let total = 0;
    for (let c = 0; c < n; c++) total += bits[c]!;
    if (total <= availBits) {
      sel.fill(1, 0, n);
      return;
    }
    this.sort(n, prio);
    sel.fill(0, 0, n);
    const keys = this.keys;
    let used = 0;
    for (let j = n - 1; j >= 0; j--) {
      const c = IDX - 1 - (keys[j]! % IDX);
      const b = bits[c]!;
      if (used + b <= availBits || j === n - 1) {
        sel[c] = 1;
        used += b;
      }
    }
  }

  /** After a write left `spareBits` unused: select more candidates whose estimates fit. Returns whether any was. */
  addMore(n: number, prio: Float64Array, bits: Int32Array, spareBits: number, sel: Uint8Array): boolean {
    if (this.sorted !== n) return false; // everything was selected
    let added = false;
    for (let j = n - 1; j >= 0 && spareBits > 0; j--) {
      const c = IDX - 1 - (this.keys[j]! % IDX);
      if (sel[c] === 1 || bits[c]! > spareBits) continue;
      sel[c] = 1;
      spareBits -= bits[c]!;
      added = true;
    }
    return added;
  }

  /** Unselect the lowest-priority selected candidates until `needBits` of estimates are freed; false when none is left. */
  dropLowest(n: number, prio: Float64Array, bits: Int32Array, needBits: number, sel: Uint8Array): boolean {
    if (this.sorted !== n) this.sort(n, prio);
    let freed = 0;
    let dropped = false;
    for (let j = 0; j < n - 1 && freed < needBits; j++) {
      const c = IDX - 1 - (this.keys[j]! % IDX);
      if (sel[c] !== 1) continue;
      sel[c] = 0;
      freed += bits[c]!;
      dropped = true;
    }
    return dropped;
  }

  private sort(n: number, prio: Float64Array): void {
    if (this.keys.length < n) this.keys = new Float64Array(Math.max(n, this.keys.length * 2));
    const keys = this.keys;
    // key = floor(priority × 64) · 2^21 + (2^21 − 1 − c); priority < 2^25, so key < 2^52: exact.
    for (let c = 0; c < n; c++) keys[c] = Math.floor(prio[c]! * 64) * IDX + (IDX - 1 - c);
    keys.subarray(0, n).sort();
    this.sorted = n;
  }
}
