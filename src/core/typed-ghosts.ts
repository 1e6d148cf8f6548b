// The engines keep ghosts untyped (`Ghost`: any type of any protocol) and hand them to game
// code typed by its protocol (`Ghost<P, K>`). `typed` is the one place where that crossing is
// asserted: TypeScript cannot check it, the engine knows what it stored. The other way needs
// no cast (a `Ghost<P, K>` is a `Ghost`).

import type { Protocol } from './protocol.ts';
import type { Ghost, GhostNames } from './world.ts';

/** An untyped ghost (or ghosts) seen as what the engine stored: ghost type K of protocol P (default: any of its types). */
export function typed<P extends Protocol, K extends GhostNames<P> = GhostNames<P>>(ghost: Ghost): Ghost<P, K>;
export function typed<P extends Protocol, K extends GhostNames<P> = GhostNames<P>>(ghosts: Iterable<Ghost>): Iterable<Ghost<P, K>>;
export function typed(ghost: Ghost | Iterable<Ghost>): unknown {
  return ghost;
}
