// A short seeded run of the structure-aware fuzzer (bench/load/fuzz; `npm run fuzz` runs
// the full one): over the loopback with the server on start() and a virtual clock, and
// over real socket.io on 127.0.0.1 with the server in its own process. Nothing may escape
// containment, no tick may be lost, no out-of-bounds value may reach a system or handler,
// and the well-behaved client playing alongside must see every snapshot and no error.

import { describe, expect, it } from 'vitest';
import { fuzzLoopback } from '../../bench/load/fuzz/loopback.ts';
import { KIND_ROWS, formatReport, type FuzzReport } from '../../bench/load/fuzz/report.ts';
import { fuzzSocketIo } from '../../bench/load/fuzz/socketio.ts';

function expectClean(r: FuzzReport): void {
  const table = formatReport(r);
  expect(r.server.escaped, table).toBe(0);
  expect(r.server.ticksLost, table).toBe(0);
  expect(r.server.violations.input + r.server.violations.join + r.server.violations.rpc, table).toBe(0);
  expect(r.good.snapshotGaps, table).toBe(0);
  expect(r.good.stateErrors, table).toEqual([]);
  expect(r.good.snapshots, table).toBeGreaterThan(10);
  // Coverage: every row of the table was exercised, and the malformed ones closed connections.
  for (const kind of KIND_ROWS) expect(r.rows[kind].sent, `${kind}\n${table}`).toBeGreaterThan(0);
  expect(r.rows['unknown kind'].closed, table).toBe(r.rows['unknown kind'].sent); // a client may never send those
  for (const v of Object.values(r.variants)) expect(v.sent, table).toBeGreaterThan(0);
}

describe('protocol fuzzer, short seeded runs', () => {
  it('loopback, 2000 packets: contained, no tick lost, the good client unaffected — and the same seed gives the same run', () => {
    const r = fuzzLoopback({ packets: 2000, seed: 16, connections: 24 });
    expectClean(r);
    expect(r.server.ticks).toBeGreaterThan(50);
    const again = fuzzLoopback({ packets: 300, seed: 16, connections: 8 });
    const once = fuzzLoopback({ packets: 300, seed: 16, connections: 8 });
    expect(again.rows).toEqual(once.rows);
  });

  it('socket.io on 127.0.0.1 (server in its own process), 200 packets: the same holds over real sockets', async () => {
    const r = await fuzzSocketIo({ packets: 200, seed: 16, connections: 16, burst: 4 });
    expectClean(r);
  }, 120_000);
});
