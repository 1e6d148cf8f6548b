// createClient / createServer check their one options object first, so the common JavaScript slip
// createClient(protocol, systems, { transport }) says what to write instead of a TypeError deep inside.
import { describe, expect, it } from 'vitest';
import { createClient, createServer, defineProtocol, field, ghost } from '../../src/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';

const protocol = defineProtocol({ tickRate: 60, snapshotRate: 20, ghosts: { box: ghost({ x: field.f32() }) }, input: {} });

describe('engine options', () => {
  it('createClient with the protocol as first argument says to pass one options object', () => {
    const call = () => (createClient as (...a: unknown[]) => unknown)(protocol, [], {});
    expect(call).toThrow(/^react-netcode: createClient needs options\.protocol.*got a protocol as the first argument/);
  });

  it('createServer without a transport, or without options, says what to pass', () => {
    expect(() => createServer({ protocol } as never)).toThrow(/^react-netcode: createServer needs options\.transport/);
    expect(() => (createServer as (...a: unknown[]) => unknown)()).toThrow(/^react-netcode: createServer needs options\.protocol/);
  });

  it('createServer hands snapshotAckLadder to its snapshot encoder (an invalid ladder is refused there)', () => {
    const net = new LoopbackNetwork();
    expect(() => createServer({ protocol, transport: net.server, snapshotAckLadder: [0, 3] })).toThrow(/^react-netcode: snapshot ackLadder \[0, 3\] is invalid/);
    expect(() => createServer({ protocol, transport: net.server, snapshotAckLadder: false }).close()).not.toThrow();
  });

  it('createClient refuses a historyTicks that is not an integer in 1..2^30 at once (not at the first ghost)', () => {
    const net = new LoopbackNetwork();
    for (const historyTicks of [0, 2.5, Number.NaN, 2 ** 31]) {
      expect(() => createClient({ protocol, transport: net.createClient(), historyTicks })).toThrow(/^react-netcode: historyTicks must be an integer in 1\.\.2\^30/);
    }
    expect(() => createClient({ protocol, transport: net.createClient(), historyTicks: 100 })).not.toThrow();
  });

  it('a proper options object still builds both', () => {
    const net = new LoopbackNetwork();
    const server = createServer({ protocol, transport: net.server });
    const client = createClient({ protocol, transport: net.createClient() });
    expect(client.state.status).toBe('idle');
    server.close();
  });
});
