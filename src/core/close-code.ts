// Why a client's session closed, or why its link dropped, as a code an app can switch on
// (ClientState.closeCode) beside the text for people (closeReason). Each code is one thing a
// game does differently; the reason text says the details (the server's own words for a Close or
// a Refuse).

import { isMismatch } from './build-check.ts';

/**
 * Why the session closed (status `closed`) or the link dropped (status `reconnecting`):
 * - `'left'`: the app called `leave()` (or the React provider did: unmounted, the page closed). Nothing to tell the player.
 * - `'server-closed'`: the server ended the session (a kick, a closed room, the server shutting down, or a
 *   protocol error or rate limit it saw from this client); `closeReason` is the server's reason. Show it; offer to connect again.
 * - `'refused'`: the server refused the handshake (full, busy, no seat, or the app's own check); `closeReason` is its reason.
 *   Try again later (or matchmake again).
 * - `'mismatch'`: this client's protocol, wire format, shared systems or `buildId` is not the server's
 *   (refused by either side): a new build is deployed. Reload the page; connecting again cannot help.
 * - `'protocol-error'`: a message from the server did not decode (a bug or a corrupting proxy); the session was closed.
 *   Report it; connecting again may work.
 * - `'connect-failed'`: the link closed before the handshake finished (no server there, or the transport gave up its attempts).
 *   Offer to connect again.
 * - `'lost'`: the link of a session dropped and it could not be resumed (within `resumeGraceMs`, or with
 *   reconnection off). The server has ended it too: connect again and join.
 * - `'dropped'`: only while `reconnecting`: the link dropped (or went silent) and the client is resuming. Show a
 *   "reconnecting" hint; cleared when the session resumes.
 */
export type CloseCode = 'left' | 'server-closed' | 'refused' | 'mismatch' | 'protocol-error' | 'connect-failed' | 'lost' | 'dropped';

/** The code of a Refuse from the server with `reason`: a mismatch (its reason comes from build-check.ts), or another refusal. */
export function refusalCode(reason: string): CloseCode {
  return isMismatch(reason) ? 'mismatch' : 'refused';
}
