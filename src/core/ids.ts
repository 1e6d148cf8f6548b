// NetworkId allocation. Ids are small integers (1..65535, so that they fit the
// 16-bit owner slot of a spawnId) handed out lowest-first. A released id sits in
// quarantine until `releasedAt + quarantineMs` so it is never reissued while the
// connection that held it could still resume, or while old spawnIds carry it.
// O(log n) per allocation whatever the churn: quarantine is a FIFO (release times
// only grow), ids out of quarantine wait in a min-heap.

export class IdAllocator {
  private readonly inUse = new Set<number>();
  /** id → free at (ms), in release order (so in free-at order). */
  private readonly quarantine = new Map<number, number>();
  /** Released ids past their quarantine, lowest on top. */
  private readonly free: number[] = [];
  private next = 1;

  constructor(
    private readonly quarantineMs: number,
    private readonly maxId = 0xffff,
  ) {}

  get size(): number {
    return this.inUse.size;
  }

  get quarantined(): number {
    return this.quarantine.size;
  }

  /** The lowest id neither in use nor in quarantine at `now`, or undefined when all are taken. */
  allocate(now: number): number | undefined {
    for (const [id, freeAt] of this.quarantine) {
      if (freeAt > now) break;
      this.quarantine.delete(id);
      this.push(id);
    }
    const id = this.free.length > 0 ? this.pop() : this.next <= this.maxId ? this.next++ : undefined;
    if (id !== undefined) this.inUse.add(id);
    return id;
  }

  /** Put `id` back; it becomes available again at `now + quarantineMs`. */
  release(id: number, now: number): void {
    if (!this.inUse.delete(id)) return;
    this.quarantine.set(id, now + this.quarantineMs);
  }

  isInUse(id: number): boolean {
    return this.inUse.has(id);
  }

  private push(id: number): void {
    const h = this.free;
    let i = h.push(id) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]! <= id) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = id;
  }

  private pop(): number {
    const h = this.free;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const c = l + 1 < h.length && h[l + 1]! < h[l]! ? l + 1 : l;
      if (h[c]! >= last) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
    return top;
  }
}
