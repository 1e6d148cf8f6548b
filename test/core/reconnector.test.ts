// The client's resume schedule (Reconnector): attempts after the configured delays, the last delay repeated, the grace
// counted from the drop, an attempt due at time 0 (a clock that starts at 0 and a delay of 0) made, bad delays refused.
import { describe, expect, it } from 'vitest';
import { Reconnector } from '../../src/core/reconnect.ts';

describe('Reconnector', () => {
  it('schedules attempts after each delay (the last one repeated) until the grace is over', () => {
    const r = new Reconnector({ resumeGraceMs: 2000, reconnectDelaysMs: [100, 300] });
    r.start(1000);
    expect(r.poll(1099)).toBe('wait');
    expect(r.poll(1100)).toBe('attempt');
    expect(r.poll(1100)).toBe('wait'); // once
    r.scheduleNext(1150); // that attempt failed at 1150: the next after 300 ms
    expect(r.poll(1449)).toBe('wait');
    expect(r.poll(1450)).toBe('attempt');
    r.scheduleNext(1500); // the last delay again
    expect(r.poll(1800)).toBe('attempt');
    expect(r.poll(2999)).toBe('wait');
    expect(r.poll(3000)).toBe('expired'); // 2000 ms after the drop
  });

  it('makes an attempt due at exactly time 0 (a drop at 0 with a delay of 0)', () => {
    const r = new Reconnector({ resumeGraceMs: 1000, reconnectDelaysMs: [0] });
    expect(r.poll(0)).toBe('wait'); // nothing scheduled before a drop
    r.start(0);
    expect(r.poll(0)).toBe('attempt');
  });

  it('refuses delays that are not finite numbers >= 0', () => {
    for (const bad of [[-1], [Number.NaN], [100, Infinity]]) {
      expect(() => new Reconnector({ reconnectDelaysMs: bad })).toThrow(/^react-netcode: reconnectDelaysMs must be finite numbers >= 0/);
    }
  });
});
