// Peer-connection setups are CPU-heavy (a DTLS handshake, certificate and key work, ICE
// checks: ≈4 ms of a core each with node-datachannel, ≈40 ms with werift) and so an
// attack surface: a client can ask for one on every connection. Setups are limited
// globally (per second) and per address (per minute), as sliding windows.

export interface SetupLimits {
  /** Setups per second, all peers together (default 20). */
  perSecond?: number;
  /** Setups per minute from one address (default 30: players behind one NAT share an address). */
  perMinutePerAddress?: number;
}

export class SetupLimiter {
  private readonly global: number[] = [];
  private readonly byAddress = new Map<string, number[]>();
  private readonly perSecond: number;
  private readonly perMinute: number;

  constructor(limits: SetupLimits = {}) {
    this.perSecond = limits.perSecond ?? 20;
    this.perMinute = limits.perMinutePerAddress ?? 30;
  }

  /** Take one setup at `now` (ms) for `address`; returns why not, or null when allowed. */
  take(address: string, now: number): string | null {
    prune(this.global, now - 1000);
    if (this.global.length >= this.perSecond) return `the server is setting up ${this.perSecond} peer connections per second already (option limits.perSecond)`;
    const mine = this.byAddress.get(address) ?? [];
    prune(mine, now - 60_000);
    if (mine.length >= this.perMinute) return `${this.perMinute} peer connections per minute from ${address} already (option limits.perMinutePerAddress)`;
    this.global.push(now);
    mine.push(now);
    this.byAddress.set(address, mine);
    if (this.byAddress.size > 10_000) this.sweep(now);
    return null;
  }

  private sweep(now: number): void {
    for (const [address, times] of this.byAddress) {
      prune(times, now - 60_000);
      if (times.length === 0) this.byAddress.delete(address);
    }
  }
}

function prune(times: number[], before: number): void {
  let i = 0;
  while (i < times.length && times[i]! <= before) i++;
  if (i > 0) times.splice(0, i);
}
