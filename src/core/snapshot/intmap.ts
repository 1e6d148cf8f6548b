// uint32 → int map in typed arrays (open addressing, linear probing, backward-shift
// deletion): the snapshot encoder's ghost id → dense index lookup, done once per
// ghost per connection per tick, so it must not allocate or hash strings.

export class IntMap {
  private keys: Uint32Array;
  private vals: Int32Array;
  private shift: number;
  private count = 0;

  constructor(initialCapacity = 64) {
    let bits = 4;
    while (1 << bits < initialCapacity * 2) bits++;
    this.keys = new Uint32Array(1 << bits);
    this.vals = new Int32Array(1 << bits).fill(-1);
    this.shift = 32 - bits;
  }

  get size(): number {
    return this.count;
  }

  private home(key: number): number {
    return Math.imul(key, 0x9e37_79b1) >>> this.shift;
  }

  /** The value for `key`, or -1. */
  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      const v = this.vals[i]!;
      if (v < 0) return -1;
      if (this.keys[i] === key) return v;
    }
  }

  /** Set `key` to `value` (>= 0). */
  set(key: number, value: number): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      if (this.vals[i]! < 0) {
        this.keys[i] = key;
        this.vals[i] = value;
        this.count++;
        return;
      }
      if (this.keys[i] === key) {
        this.vals[i] = value;
        return;
      }
    }
  }

  delete(key: number): void {
    const mask = this.keys.length - 1;
    let i = this.home(key);
    for (; ; i = (i + 1) & mask) {
      if (this.vals[i]! < 0) return;
      if (this.keys[i] === key) break;
    }
    this.count--;
    // Backward shift: pull later entries of the probe run into the hole.
    for (let j = (i + 1) & mask; this.vals[j]! >= 0; j = (j + 1) & mask) {
      const h = this.home(this.keys[j]!);
      // Move j into i unless its home lies cyclically in (i, j].
      if (i <= j ? h <= i || h > j : h <= i && h > j) {
        this.keys[i] = this.keys[j]!;
        this.vals[i] = this.vals[j]!;
        i = j;
      }
    }
    this.vals[i] = -1;
  }

  private grow(): void {
    const keys = this.keys;
    const vals = this.vals;
    this.keys = new Uint32Array(keys.length * 2);
    this.vals = new Int32Array(keys.length * 2).fill(-1);
    this.shift--;
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (vals[i]! >= 0) this.set(keys[i]!, vals[i]!);
  }
}
