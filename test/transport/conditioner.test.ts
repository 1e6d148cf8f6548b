// LinkConditioner statistics and conditionClient end to end over the loopback on a
// virtual clock. Every figure is seeded, so the bounds below are reproducible.

import { describe, expect, it } from 'vitest';
import { LinkConditioner, conditionClient } from '../../src/transport/conditioner.ts';
import type { LinkOptions } from '../../src/transport/conditioner.ts';
import { DelayLine } from '../../src/transport/delay-line.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { VirtualScheduler } from '../../src/transport/scheduler.ts';
import type { Channel, PeerId, Scheduler } from '../../src/core/transport.ts';

/** Send `n` packets one every `every` ms; returns each packet's delivery times. */
function run(options: LinkOptions, seed: number, n: number, channel: Channel, every = 1): number[][] {
  const link = new LinkConditioner(options, seed);
  const times: number[][] = [];
  for (let i = 0; i < n; i++) times.push([...link.schedule(i * every, channel)]);
  return times;
}

/** True when some packet arrives before one sent earlier (equal times keep send order). */
function outOfOrder(times: readonly number[][]): boolean {
  let latest = -Infinity;
  for (const t of times) {
    const first = t[0];
    if (first === undefined) continue;
    if (first < latest) return true;
    latest = first;
  }
  return false;
}

describe('LinkConditioner', () => {
  it('drops 10% of 10,000 unreliable packets (9,000 ± 1.5% delivered)', () => {
    const link = new LinkConditioner({ loss: 0.1 }, 42);
    let delivered = 0;
    for (let i = 0; i < 10_000; i++) delivered += link.schedule(i, 'unreliable').length;
    expect(delivered).toBeGreaterThanOrEqual(8865); // 9000 - 1.5% of 9000 = 9000 - 135
    expect(delivered).toBeLessThanOrEqual(9135); // 9000 + 135
    expect(link.stats.dropped).toBe(10_000 - delivered);
    expect(link.stats.sent).toBe(10_000);
  });

  it('spreads 100 ms ± 20 ms over the whole range [80, 120]', () => {
    const delays = run({ latencyMs: 100, jitterMs: 20 }, 7, 10_000, 'unreliable').map((t, i) => (t[0] ?? NaN) - i);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(80); // 100 - 20
    expect(Math.max(...delays)).toBeLessThanOrEqual(120); // 100 + 20
    expect(Math.min(...delays)).toBeLessThan(85);
    expect(Math.max(...delays)).toBeGreaterThan(115);
  });

  it('never delays below 0 when jitter exceeds latency', () => {
    const delays = run({ latencyMs: 5, jitterMs: 20 }, 3, 1000, 'unreliable').map((t, i) => (t[0] ?? NaN) - i);
    expect(Math.min(...delays)).toBe(0); // 5 - 20 < 0 is clamped
  });

  it('reorders with reorder = 0.1 (jitter 0, one packet per ms) and never with reorder = 0', () => {
    const held = new LinkConditioner({ latencyMs: 50, reorder: 0.1 }, 11);
    const times: number[][] = [];
    for (let i = 0; i < 1000; i++) times.push([...held.schedule(i, 'unreliable')]);
    expect(outOfOrder(times)).toBe(true); // held back 50 + max(20, 2 * 0) = 70 ms: overtaken by the next 19
    expect(held.stats.reordered).toBeGreaterThan(50); // ≈ 0.1 * 1000 = 100
    expect(held.stats.reordered).toBeLessThan(150);
    expect(outOfOrder(run({ latencyMs: 50 }, 11, 1000, 'unreliable'))).toBe(false);
  });

  it('duplicates at about the configured rate, each copy with its own delay', () => {
    const link = new LinkConditioner({ latencyMs: 40, jitterMs: 10, duplicate: 0.05 }, 5);
    let doubles = 0;
    let distinct = 0;
    for (let i = 0; i < 10_000; i++) {
      const t = link.schedule(i, 'unreliable');
      if (t.length === 2) {
        doubles++;
        if (t[0] !== t[1]) distinct++;
      }
    }
    expect(doubles).toBe(link.stats.duplicated);
    expect(doubles).toBeGreaterThan(400); // ≈ 0.05 * 10,000 = 500; sd ≈ √(10,000 * 0.05 * 0.95) ≈ 22
    expect(doubles).toBeLessThan(600);
    expect(distinct).toBe(doubles);
  });

  it('never drops, duplicates or reorders reliable packets, even with loss, jitter, reorder and duplicate set', () => {
    const link = new LinkConditioner({ latencyMs: 50, jitterMs: 30, loss: 0.2, reorder: 0.5, duplicate: 0.5 }, 9);
    const times: number[][] = [];
    for (let i = 0; i < 10_000; i++) times.push([...link.schedule(i, 'reliable')]);
    expect(times.every((t) => t.length === 1)).toBe(true);
    expect(outOfOrder(times)).toBe(false);
    expect(link.stats).toMatchObject({ dropped: 0, duplicated: 0, reordered: 0 });
    // ≈ 0.2 * 10,000 = 2,000 first losses, plus ≈ 0.2 of those lost again: ≈ 2,500 retransmissions
    expect(link.stats.retransmitted).toBeGreaterThan(2300);
    expect(link.stats.retransmitted).toBeLessThan(2700);
  });

  it('releases a head-of-line burst behind a retransmitted reliable packet', () => {
    // latency 50, jitter 0, retransmit 200: a delivered packet takes 50 ms, a lost one 50 + 200 = 250 (or more).
    const at = run({ latencyMs: 50, loss: 0.2, retransmitMs: 200 }, 9, 2000, 'reliable').map((t) => t[0] ?? NaN);
    const lost = at.findIndex((t, i) => t - i >= 250);
    expect(lost).toBeGreaterThanOrEqual(0);
    const lostAt = at[lost] ?? NaN;
    // Packets sent in the next 199 ms would arrive by (lost + 199) + 50 = lost + 249 < lostAt on their own.
    const after = at.slice(lost + 1, lost + 200);
    expect(after.every((t) => t >= lostAt)).toBe(true);
    // Held packets are released together with the loss they waited behind: ≈ 0.8 * 199 ≈ 159 share the previous packet's time.
    const released = after.filter((t, i) => t === (i === 0 ? lostAt : after[i - 1])).length;
    expect(released).toBeGreaterThan(120);
  });

  it('is deterministic per seed', () => {
    const options: LinkOptions = { latencyMs: 30, jitterMs: 15, loss: 0.1, duplicate: 0.1, reorder: 0.1 };
    expect(run(options, 1234, 500, 'unreliable')).toEqual(run(options, 1234, 500, 'unreliable'));
    expect(run(options, 1234, 500, 'unreliable')).not.toEqual(run(options, 1235, 500, 'unreliable'));
  });

  it('reuses one result array and rejects invalid options with usage errors', () => {
    const link = new LinkConditioner({}, 1);
    expect(link.schedule(0, 'unreliable')).toBe(link.schedule(1, 'reliable'));
    expect(() => link.setOptions({ loss: 1.5 })).toThrow(/^react-netcode: LinkOptions.loss/);
    expect(() => link.setOptions({ latencyMs: -1 })).toThrow(/^react-netcode: LinkOptions.latencyMs/);
  });
});

/** A conditioned client on a loopback network, stepped 1 ms at a time with instant loopback delivery. */
function harness(up: LinkOptions, down: LinkOptions, seed = 1) {
  const clock = new VirtualScheduler();
  const net = new LoopbackNetwork();
  const atServer: { t: number; peer: PeerId; value: number }[] = [];
  const atClient: { t: number; value: number }[] = [];
  const events: string[] = [];
  let echo = false;
  net.server.listen({
    onConnect: () => {},
    onMessage: (peer, data, channel) => {
      atServer.push({ t: clock.now(), peer, value: data[0] ?? -1 });
      if (echo) net.server.send(peer, data, channel);
    },
    onDisconnect: (peer, reason) => events.push(`server: ${peer} ${reason} @${clock.now()}`),
  });
  const client = conditionClient(net.createClient(), { seed, up, down }, clock);
  client.connect({
    onOpen: () => events.push(`open @${clock.now()}`),
    onMessage: (data) => atClient.push({ t: clock.now(), value: data[0] ?? -1 }),
    onClose: (reason) => events.push(`close ${reason} @${clock.now()}`),
  });
  const advance = (to: number): void => {
    for (let t = clock.now(); t <= to; t++) {
      clock.advanceTo(t);
      while (net.deliver() > 0);
    }
  };
  advance(0);
  return { clock, net, client, atServer, atClient, events, advance, setEcho: (on: boolean) => (echo = on) };
}

describe('conditionClient over LoopbackNetwork', () => {
  it('delays both ways: latency 50 → a reply to a message sent at 0 arrives at 100', () => {
    const h = harness({ latencyMs: 50 }, { latencyMs: 50 });
    h.setEcho(true);
    expect(h.events).toEqual(['open @0']); // onOpen passes straight through
    h.client.send(Uint8Array.of(7), 'unreliable');
    h.advance(200);
    expect(h.atServer).toEqual([{ t: 50, peer: 1, value: 7 }]); // 0 + 50 up
    expect(h.atClient).toEqual([{ t: 100, value: 7 }]); // 50 + 50 down
  });

  it('keeps reliable order under jitter and loss (each send a buffer of its own, as the transport contract asks)', () => {
    const h = harness({ latencyMs: 20, jitterMs: 15, loss: 0.2 }, {});
    for (let i = 0; i < 200; i++) {
      h.client.send(Uint8Array.of(i), 'reliable');
      h.advance(h.clock.now() + 1);
    }
    h.advance(2000);
    expect(h.atServer.map((m) => m.value)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(h.client.up.stats.retransmitted).toBeGreaterThan(0);
  });

  it('applies loss per direction', () => {
    const h = harness({ loss: 0.3 }, {});
    h.setEcho(true);
    for (let i = 0; i < 1000; i++) h.client.send(Uint8Array.of(i & 0xff), 'unreliable');
    h.advance(10);
    // up: ≈ 0.7 * 1000 = 700 arrive (sd ≈ √(1000 * 0.3 * 0.7) ≈ 14.5); down is lossless so every echo returns
    expect(h.atServer.length).toBeGreaterThan(650);
    expect(h.atServer.length).toBeLessThan(750);
    expect(h.atClient.length).toBe(h.atServer.length);

    const g = harness({}, { loss: 0.3 });
    g.setEcho(true);
    for (let i = 0; i < 1000; i++) g.client.send(Uint8Array.of(i & 0xff), 'unreliable');
    g.advance(10);
    expect(g.atServer.length).toBe(1000);
    expect(g.atClient.length).toBe(1000 - g.client.down.stats.dropped);
    expect(g.client.down.stats.dropped).toBeGreaterThan(250); // ≈ 0.3 * 1000 = 300
    expect(g.client.down.stats.dropped).toBeLessThan(350);
  });

  it('a client close sends its delayed reliable packets at once, in order, drops the rest, and delivers nothing after', () => {
    const h = harness({ latencyMs: 100 }, { latencyMs: 100 });
    h.setEcho(true);
    h.client.send(Uint8Array.of(1), 'reliable'); // reaches the server at 100, echo would be back at 200
    h.client.send(Uint8Array.of(2), 'unreliable');
    h.advance(150);
    h.client.send(Uint8Array.of(3), 'unreliable'); // would reach the server at 250: dropped by the close
    h.client.send(Uint8Array.of(4), 'reliable'); // would reach the server at 250: sent now (a leaving client's Close)
    h.client.send(Uint8Array.of(5), 'reliable');
    h.client.close('quit');
    expect(h.clock.pending).toBe(0);
    h.advance(1000);
    expect(h.atServer.map((m) => [m.value, m.t])).toEqual([[1, 100], [2, 100], [4, 150], [5, 150]]);
    expect(h.atClient).toEqual([]);
    expect(h.events).toEqual(['open @0', 'close quit @150', 'server: 1 quit @150']);
  });

  it('delivers nothing after a server-side disconnect', () => {
    const h = harness({}, { latencyMs: 100 });
    h.net.server.send(1, Uint8Array.of(9), 'reliable'); // would arrive at 100
    h.advance(50);
    h.net.server.disconnect(1, 'kicked');
    h.advance(1000);
    expect(h.atClient).toEqual([]);
    expect(h.events).toEqual(['open @0', 'server: 1 kicked @50', 'close kicked @50']);
  });

  it('takes setOptions changes live, one direction at a time', () => {
    const h = harness({ latencyMs: 50 }, { latencyMs: 30 });
    h.setEcho(true);
    h.client.send(Uint8Array.of(1), 'unreliable');
    h.advance(100);
    h.client.setOptions({ up: { latencyMs: 10 } }); // down keeps 30
    h.client.send(Uint8Array.of(2), 'unreliable');
    h.advance(300);
    expect(h.atServer).toEqual([
      { t: 50, peer: 1, value: 1 }, // 0 + 50
      { t: 110, peer: 1, value: 2 }, // 100 + 10
    ]);
    expect(h.atClient).toEqual([
      { t: 80, value: 1 }, // 50 + 30
      { t: 140, value: 2 }, // 110 + 30
    ]);
  });

  it('derives independent up and down streams from one seed', () => {
    const a = harness({ jitterMs: 10 }, { jitterMs: 10 }, 5).client;
    const up = [...Array(20)].map((_, i) => a.up.schedule(i, 'unreliable')[0]);
    const down = [...Array(20)].map((_, i) => a.down.schedule(i, 'unreliable')[0]);
    expect(up).not.toEqual(down);
  });

  it('sends what is due at the next send when timers run late (a busy page), in order', () => {
    // Every timer of this scheduler fires 50 ms late, as on a page whose main thread renders.
    const clock = new VirtualScheduler();
    const late: Scheduler = { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms + 50), clearTimeout: (h) => clock.clearTimeout(h) };
    const net = new LoopbackNetwork();
    const atServer: { t: number; value: number }[] = [];
    net.server.listen({ onConnect: () => {}, onMessage: (_p, data) => atServer.push({ t: clock.now(), value: data[0] ?? -1 }), onDisconnect: () => {} });
    const client = conditionClient(net.createClient(), { seed: 1, up: { latencyMs: 20 } }, late);
    client.connect({ onOpen: () => {}, onMessage: () => {}, onClose: () => {} });
    const advance = (to: number): void => {
      for (let t = clock.now(); t <= to; t++) {
        clock.advanceTo(t);
        while (net.deliver() > 0);
      }
    };
    advance(0);
    client.send(Uint8Array.of(1), 'reliable'); // due at 20, its timer fires at 70
    client.send(Uint8Array.of(2), 'unreliable'); // due at 20, its timer fires at 70
    advance(30);
    client.send(Uint8Array.of(3), 'reliable'); // the next frame's send: 1 and 2 leave first, at 30
    advance(200);
    expect(atServer).toEqual([
      { t: 30, value: 1 }, // 10 ms after its time, not 50
      { t: 30, value: 2 },
      { t: 100, value: 3 }, // 30 + 20, its timer 50 late: no later send pulled it out
    ]);
  });

  it('a line delivers its due unreliable packets by their time, whatever order they were pushed in, and keeps the others', () => {
    const clock = new VirtualScheduler();
    const never: Scheduler = { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms + 1000), clearTimeout: (h) => clock.clearTimeout(h) };
    const got: number[] = [];
    const line = new DelayLine(never, (data) => got.push(data[0]!));
    for (const [at, v] of [[30, 3], [10, 1], [45, 5], [20, 2], [10.5, 9]] as const) line.push(at, Uint8Array.of(v), 'unreliable');
    clock.advanceTo(40);
    line.deliverDue();
    expect(got).toEqual([1, 9, 2, 3]);
    line.deliverDue(); // nothing more is due
    expect(got).toEqual([1, 9, 2, 3]);
    clock.advanceTo(50);
    line.deliverDue();
    line.push(60, Uint8Array.of(6), 'unreliable');
    clock.advanceTo(60);
    line.deliverDue();
    expect(got).toEqual([1, 9, 2, 3, 5, 6]);
  });
});
