// A link that goes silent without closing (a frozen or vanished host, a NAT that dropped the flow,
// a proxy holding the bytes): nothing from the server for `silenceTimeoutMs` (8 s) counts as a
// drop, so the client shows `reconnecting` and resumes when the link heals, instead of sitting
// `in-game` on a frozen world until the transport's own heartbeat gives up (socket.io: ≈ 45 s).

import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const quiet: Logger = () => {};
const fast = { latencyMs: 20 };

function setup(engine: Record<string, unknown> = {}, server: Record<string, unknown> = {}) {
  const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, seed: 7, server, clients: [{ link: { up: fast, down: fast }, engine }] });
  s.server.events.on('join', (c) => s.server.spawn('player', { hp: 100 }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  s.advance(500);
  return { s, client: s.clients[0]!.client, link: s.clients[0]!.link! };
}

describe("a link that goes silent without closing (in game)", () => {
  it('counts as a drop after silenceTimeoutMs (8 s): reconnecting, then resumed with the same networkId when it heals', () => {
    const { s, client, link } = setup();
    const id = client.networkId;
    const statuses: { at: number; status: string }[] = [];
    client.events.on('status', (st) => statuses.push({ at: s.now, status: st.status }));
    const cutAt = s.now;
    link.setOptions({ up: { ...fast, loss: 1 }, down: { ...fast, loss: 1 } }); // every packet lost, the link "open"
    s.advance(7500);
    expect(client.status).toBe('in-game'); // not before the timeout
    s.until(() => client.status === 'reconnecting', 2000, 'the silence to count as a drop');
    expect(s.now - cutAt).toBeGreaterThanOrEqual(8000);
    expect(s.now - cutAt).toBeLessThan(8700);
    expect(client.state.closeReason).toMatch(/^react-netcode: the server sent nothing for 8000 ms/);
    link.setOptions({ up: fast, down: fast });
    s.until(() => client.status === 'in-game', 5000, 'the resume');
    expect(client.networkId).toBe(id); // resumed: the same session
    expect(statuses.map((x) => x.status)).toEqual(['reconnecting', 'in-game']);
  });

  it('silenceTimeoutMs: 0 turns it off (the client waits for the transport)', () => {
    const { s, client, link } = setup({ silenceTimeoutMs: 0 }, { silenceTimeoutMs: 0 }); // the server's own check off too (test/core/server-silence.test.ts)
    link.setOptions({ up: { ...fast, loss: 1 }, down: { ...fast, loss: 1 } });
    s.advance(9000);
    expect(client.status).toBe('in-game');
    link.setOptions({ up: fast, down: fast });
    s.advance(1000);
    expect(client.status).toBe('in-game');
  });

  it('a paused client back after 20 s is not taken for silent (it heard nothing because it ran no frames)', () => {
    const { s, client } = setup();
    client.setPaused(true);
    const update = client.update.bind(client);
    client.update = () => {}; // a hidden page: no frames; the link stays up
    s.advance(20_000);
    client.update = update;
    client.setPaused(false);
    s.advance(1000);
    expect(client.status).toBe('in-game');
  });

  it('a client that itself stalled 9 s (a stopped process, a blocked page) does not blame the server for what it has not read yet', () => {
    const { s, client, link } = setup({}, { silenceTimeoutMs: 0 }); // the server's own check off: the client's alone
    const statuses: string[] = [];
    client.events.on('status', (st) => statuses.push(st.status));
    const update = client.update.bind(client);
    client.update = () => {}; // frozen: no frames …
    link.setOptions({ up: fast, down: { ...fast, loss: 1 } }); // … and what the server sends is not read before the first frame after
    s.advance(9000);
    link.setOptions({ up: fast, down: fast });
    client.update = update;
    s.advance(1000);
    expect(client.status).toBe('in-game');
    expect(statuses).toEqual([]); // the frame after a stall of more than half the timeout starts the count again
  });

  it('after such a stall, a server that stays silent still counts as a drop, silenceTimeoutMs after the wake', () => {
    const { s, client, link } = setup({}, { silenceTimeoutMs: 0 });
    const update = client.update.bind(client);
    client.update = () => {};
    link.setOptions({ up: fast, down: { ...fast, loss: 1 } }); // and it stays so: the host is gone
    s.advance(9000);
    client.update = update;
    const wake = s.now;
    s.until(() => client.status === 'reconnecting', 10_000, 'the silence after the wake');
    expect(s.now - wake).toBeGreaterThanOrEqual(8000);
    expect(s.now - wake).toBeLessThan(8700);
  });

  it('is not checked before the join: a client connected in a lobby for 20 s, hearing nothing, stays connected', () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, seed: 8, clients: [{ link: { up: fast, down: fast } }] });
    const client = s.clients[0]!.client;
    s.until(() => client.status === 'connected', 3000, 'connected');
    const statuses: string[] = [];
    client.events.on('status', (st) => statuses.push(st.status));
    s.advance(20_000);
    expect(client.status).toBe('connected');
    expect(statuses).toEqual([]);
    client.join({ name: 'late' });
    s.until(() => client.status === 'in-game', 3000, 'the join');
  });

  it('rejects a negative silenceTimeoutMs with a clear error', () => {
    expect(() => setup({ silenceTimeoutMs: -1 })).toThrow(/^react-netcode: silenceTimeoutMs must be a number >= 0/);
  });
});
