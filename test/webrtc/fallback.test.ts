// The fallback, everywhere (no network namespace needed): the demo game's server and two
// headless clients over the WebRTC transport on 127.0.0.1, with the data channel blocked —
// every ICE candidate stripped from both descriptions, so ICE has nothing to try and no
// UDP packet is sent. The unreliable channel must stay on socket.io, the stats must say
// so and why, within the open timeout, and the game must not notice: snapshots at the
// snapshot rate, every jump press counted once on the server. ≈ 8 s.
import { describe, expect, it } from 'vitest';
import { runGame } from '../../bench/webrtc/harness.ts';

const OPEN_TIMEOUT_MS = 1000;
const SECONDS = 5;

describe('WebRTC fallback (data channel blocked)', () => {
  it('stays on socket.io, says so in the stats within the open timeout, and the game runs as usual', { timeout: 60_000 }, async () => {
    const run = await runGame(undefined, { mode: 'webrtc', loss: 0, seed: 1 }, { mode: 'webrtc', clients: 2, fps: 60, seconds: SECONDS, block: true, openTimeoutMs: OPEN_TIMEOUT_MS });
    const why = JSON.stringify({ server: run.server, clients: run.clients.map((c) => ({ ...c, snapshotDelays: c.snapshotDelays.length })) });
    console.log(`fallback: ${run.clients.map((c) => `path ${c.path} after ${c.fallbackAfterMs?.toFixed(0)} ms, ${c.snapshots} snapshots`).join('; ')}`);
    expect(run.server.paths, why).toEqual(['socket.io', 'socket.io']);
    for (const c of run.clients) {
      expect(c.path, why).toBe('socket.io');
      expect(c.fallbackReason, why).toMatch(/^react-netcode: the unreliable channel runs over socket.io: the data channel did not open within 1000 ms/);
      expect(c.fallbackAfterMs, why).toBeGreaterThanOrEqual(OPEN_TIMEOUT_MS - 20);
      expect(c.fallbackAfterMs, why).toBeLessThan(OPEN_TIMEOUT_MS + 1500); // a frame or a loaded machine late
      // measured from 1.5 s after start: ≈ 20 snapshots per second; nothing lost on TCP
      expect(c.snapshots, why).toBeGreaterThan(0.8 * 20 * (SECONDS - 1.5));
      expect(c.jumpsServer, why).toBe(c.presses);
      expect(c.presses, why).toBeGreaterThan(0);
    }
  });
});
