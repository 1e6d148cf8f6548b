// Node ↔ Node over the data channel, in a network namespace this test creates (WebRTC does
// not connect over loopback alone; the machine's own interfaces are never used): the load
// game's server (node-datachannel) in its own process and two headless clients
// (node-datachannel's RTCPeerConnection) in another, with 5 % loss each way injected by
// the conditioner on the server. Both sides must report the data channel as the path;
// about 5 % of snapshots are lost and none is held back (no head-of-line wait: p99 delay
// far below TCP's 200 ms RTO); inputs are redundant, so every jump press still counts
// once. Skipped, with the reason, where a namespace cannot be created. ≈ 10 s.
import { afterAll, describe, expect, it } from 'vitest';
import { runGame } from '../../bench/webrtc/harness.ts';
import { createNetns, type Netns } from '../../bench/webrtc/netns.ts';

const made = createNetns();
const netns: Netns | undefined = 'skip' in made ? undefined : made;
afterAll(() => netns?.remove());
const SECONDS = 6;

describe.skipIf(netns === undefined)(`WebRTC Node ↔ Node in a network namespace${'skip' in made ? ` — skipped: ${made.skip}` : ''}`, () => {
  it('carries the game over the data channel with 5 % loss: ≈ 5 % snapshots lost, none delayed, every press counted', { timeout: 60_000 }, async () => {
    const run = await runGame(netns, { mode: 'webrtc', loss: 0.05, seed: 7 }, { mode: 'webrtc', clients: 2, fps: 60, seconds: SECONDS });
    const why = JSON.stringify({ server: run.server, clients: run.clients.map((c) => ({ ...c, snapshotDelays: c.snapshotDelays.length })) });
    expect(run.server.paths, why).toEqual(['webrtc', 'webrtc']);
    for (const c of run.clients) {
      const expected = 20 * (SECONDS - 1.5); // snapshots at 20 Hz over the window measured
      const delays = [...c.snapshotDelays].sort((a, b) => a - b);
      const p99 = delays[Math.floor(0.99 * (delays.length - 1))]!;
      console.log(`webrtc client: ${c.snapshots}/${expected} snapshots, p99 delay ${p99.toFixed(1)} ms, opened after ${c.webrtcAfterMs?.toFixed(0)} ms`);
      expect(c.path, why).toBe('webrtc');
      expect(c.fallbackReason, why).toBeUndefined();
      expect(c.snapshots, why).toBeGreaterThan(0.8 * expected);
      expect(c.snapshots, why).toBeLessThan(0.995 * expected + 2); // some were lost: the data channel, not TCP, carried them
      expect(p99, why).toBeLessThan(100);
      expect(c.jumpsServer, why).toBe(c.presses);
    }
  });
});
