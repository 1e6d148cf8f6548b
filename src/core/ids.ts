// NetworkId allocation. Ids are small integers (1..65535, so that they fit the
// 16-bit owner slot of a spawnId) handed out lowest-first. A released id sits in
// quarantine until `releasedAt + quarantineMs` so it is never reissued while the
// connection that held it could still resume, or while old spawnIds carry it.

export class IdAllocator {
  private readonly inUse = new Set<number>();
  private readonly quarantine = new Map<number, number>(); // id -> free at (ms)
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
      if (freeAt <= now) this.quarantine.delete(id);
    }
    // Fast path: ids above `next` have never been issued.
    for (let id = 1; id < this.next; id++) {
      if (!this.inUse.has(id) && !this.quarantine.has(id)) {
        this.inUse.add(id);
        return id;
      }
    }
    if (this.next > this.maxId) return undefined;
    const id = this.next++;
    this.inUse.add(id);
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
}
