// `createServer`, the one way a game builds its authoritative server: NetServer (src/core/server.ts)
// with the platform's defaults filled in — the real monotonic clock and Web Crypto resume tokens —
// which src/core cannot reach itself (it takes time and randomness injected; see docs/architecture.md,
// "House rules").

import { NetServer, type ServerOptions } from './core/server.ts';
import type { Protocol } from './core/protocol.ts';
import { realTimeScheduler } from './transport/scheduler.ts';

const tokenWord = new Uint32Array(1);
/** An unpredictable uint32 (Web Crypto, in Node ≥ 19 and every browser) for resume tokens. */
function secureRandomUint32(): number {
  return globalThis.crypto.getRandomValues(tokenWord)[0]!;
}

/**
 * Create the authoritative server. `start()` runs it on the real monotonic clock unless you pass
 * another `scheduler`; resume tokens come from Web Crypto unless you pass `randomUint32`.
 */
export function createServer<P extends Protocol>(options: ServerOptions<P>): NetServer<P> {
  return new NetServer({ scheduler: realTimeScheduler, randomUint32: secureRandomUint32, ...options });
}
