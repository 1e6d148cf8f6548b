import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { chatProtocol } from '../helpers/protocols.ts';

const quiet: Logger = () => {};

/** A run of 3 clients on lossy, jittery links exchanging chat; returns what everyone heard and when. */
function chatRun(seed: number): string[] {
  const link = { up: { latencyMs: 40, jitterMs: 15, loss: 0.1 }, down: { latencyMs: 40, jitterMs: 15, loss: 0.1 } };
  const s = createStepper({ protocol: chatProtocol, seed, log: quiet, clients: [{ link }, { link }, { link }] });
  const trace: string[] = [];
  s.server.onRpc('say', (conn, { text }) => {
    trace.push(`${s.now.toFixed(3)} server<-${conn.networkId} ${text}`);
    s.server.broadcast('said', { from: conn.networkId, text });
  });
  s.clients.forEach((c) => c.client.onRpc('said', (p) => trace.push(`${s.now.toFixed(3)} ${c.index}<-${p.from} ${p.text}`)));
  s.joinAll({ name: 'x', token: '' });
  for (let i = 0; i < 20; i++) {
    s.clients[i % 3]!.client.send('say', { text: `m${i}` });
    s.advance(7 + (i % 5));
  }
  s.advance(2000);
  return trace;
}

describe('Stepper', () => {
  it('is deterministic: same seed, same run; another seed, another timing', () => {
    const a = chatRun(7);
    const b = chatRun(7);
    const c = chatRun(8);
    expect(a.length).toBe(80); // 20 messages: 1 server receipt + 3 client receipts each (reliable channel: none lost)
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('runs each peer at its own frame rate', () => {
    const s = createStepper({
      protocol: chatProtocol,
      log: quiet,
      clients: [{ clock: { framePeriodMs: 1000 / 144 } }, { clock: { framePeriodMs: 1000 / 30 } }],
    });
    s.advance(1000);
    // Frames at t = 0, p, 2p … ≤ 1000: floor(1000 / p) + 1 (floating-point sums may land just past 1000).
    expect(s.clients[0]!.frames).toBeGreaterThanOrEqual(144);
    expect(s.clients[0]!.frames).toBeLessThanOrEqual(145);
    expect(s.clients[1]!.frames).toBeGreaterThanOrEqual(30);
    expect(s.clients[1]!.frames).toBeLessThanOrEqual(31);
    expect(s.serverPeer.frames).toBe(1001); // 1 ms server polling: t = 0..1000
    expect(s.server.currentTick).toBe(60); // 1000 ms at 60 Hz; the first poll only starts the clock
  });

  it('gives each peer its own clock offset and drift', () => {
    const s = createStepper({ protocol: chatProtocol, log: quiet, clients: [{ clock: { offsetMs: 5000, drift: 0.005 } }, { clock: { drift: -0.005 } }] });
    s.advance(10_000);
    expect(s.localTime(s.clients[0]!)).toBeCloseTo(5000 + 10_000 * 1.005, 6); // 15,050 ms
    expect(s.localTime(s.clients[1]!)).toBeCloseTo(10_000 * 0.995, 6); // 9,950 ms
  });

  it('applies link latency: a join takes at least the handshake round trips', () => {
    const link = { up: { latencyMs: 50 }, down: { latencyMs: 50 } };
    const s = createStepper({ protocol: chatProtocol, log: quiet, clients: [{ link }] });
    const connectMs = s.until(() => s.clients[0]!.client.status === 'connected');
    // Hello up (50) + Welcome down (50) = 100 ms, plus at most one server tick (16.7) and a client frame (16.7).
    expect(connectMs).toBeGreaterThanOrEqual(100);
    expect(connectMs).toBeLessThanOrEqual(100 + 2 * (1000 / 60) + 1);
  });

  it('tick(n) advances n server ticks of time', () => {
    const s = createStepper({ protocol: chatProtocol, log: quiet });
    s.tick(1);
    s.tick(120);
    expect(s.now).toBeCloseTo(121 * (1000 / 60), 9);
    expect(s.server.currentTick).toBe(120); // first tick starts the clock at t=0: floor(121 × 16.67 / 16.67) − 1
  });

  it('until() reports what it waited for when it times out', () => {
    const s = createStepper({ protocol: chatProtocol, log: quiet });
    expect(() => s.until(() => false, 100, 'godot')).toThrow(/timed out after 100 ms waiting for godot/);
  });
});
