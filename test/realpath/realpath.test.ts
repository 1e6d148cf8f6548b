// The real path, in `npm test` (the timing-sensitive group: vitest.timing.config.ts, one
// file at a time after the parallel suite). react-netcode's socket.io server runs in its
// own process (bench/load/server-process.ts, real NetServer + realTimeScheduler on
// 127.0.0.1) and six headless Node clients (real NetClient over the socket.io client
// transport) play at once here, at 10, 15, 20, 30, 60 and 144 frames/s, holding and changing
// inputs and pressing jump for 3 s after a 1.5 s warm-up, then resting 1 s. Per client:
//  - no tick the server ran in the measured window lacked its input — unless a stall
//    measured in that window (the client's frames or the server's loop, longer than the
//    input lead) explains it; the stalls are printed with any failure;
//  - every snapshot tick the server wrote to it arrived (counted at both transports);
//  - the predicted player rests where the server has it, and every press ran once there.
// Takes ≈ 10 s (≈ 3 s of it process start-up and joining).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatClient } from '../../bench/load/analysis.ts';
import { runScenario } from '../../bench/load/scenario.ts';
import { ServerProcess } from '../../bench/load/server-control.ts';

const RATES = [10, 15, 20, 30, 60, 144];
const ACTIVE_MS = 3000;
/** The field's prediction tolerance, 1/1000 · √3 ≈ 1.73 mm (position: vec3 quantize 1000): a prediction within it is never corrected. */
const POSITION_TOLERANCE_M = 0.002;

let server: ServerProcess;
beforeAll(() => {
  server = ServerProcess.spawn({ timeoutMs: 60_000 }); // sized for a loaded 2-core machine
});
afterAll(async () => {
  await server?.exit();
});

describe('real path: socket.io server in its own process, headless clients on 127.0.0.1', () => {
  it('at 10, 15, 20, 30, 60 and 144 frames/s: no input missing after warm-up unless a stall explains it, every snapshot received, the player where the server has it', { timeout: 120_000 }, async () => {
    const run = await runScenario(server, { clients: RATES.map((fps) => ({ fps })), activeMs: ACTIVE_MS, warmupMs: 1500, settleMs: 1000, readyTimeoutMs: 60_000, seed: 15 });
    const report = run.clients.map((c) => formatClient(c, run.server)).join('\n');
    console.log(`real path, ${(run.measuredMs / 1000).toFixed(1)} s measured:\n${report}`);
    for (const c of run.clients) {
      const why = `${c.name}\n${report}`;
      expect(c.framesPerSec, why).toBeGreaterThan(0.5 * c.fps); // the client really ran at about its rate (a loaded machine may cost a few frames)
      expect(c.inputsReceived, why).toBeGreaterThan(0.5 * (run.measuredMs / 1000) * run.server.tickRate); // its inputs did reach the server: ≈ 60 per second of the window
      expect(c.unexplained, why).toEqual([]);
      // Snapshots: every 3rd tick (60 Hz ticks, 20 Hz snapshots), none skipped on the server, each one received.
      const ticks = c.sentSnapshotTicks;
      expect(ticks.length, why).toBeGreaterThan(0.5 * (run.measuredMs / 1000) * 20); // ≈ 20 per second of the window
      expect(ticks.slice(1).every((t, i) => t - ticks[i]! === 3), why).toBe(true);
      expect(c.lostSnapshotTicks, why).toEqual([]);
      // At rest after the inputs stopped: the prediction agrees with the server, and each press ran exactly once.
      expect(c.positionError, why).toBeLessThanOrEqual(POSITION_TOLERANCE_M);
      expect(c.presses, why).toBeGreaterThan(0); // presses every 0.4–1.5 s for 3 s: at least 2
      expect(c.serverJumps, why).toBe(c.presses);
    }
  });
});
