// A link the transport closes for what its client sent (socket.io: an oversize message, a non-binary
// payload, an unknown event, a malformed packet — ServerTransportHandler.onPeerError) is a protocol
// violation: the session ends for good, as it does for the server's own protocol errors — no resume
// grace; the client's resume attempt gets a fresh session. A link that merely drops still resumes.
// On the Stepper, the loopback standing in for the transport: onPeerError, then the disconnect, as
// the socket.io transport does (real sockets: test/socket-io/peer-errors.test.ts).

import { describe, expect, it } from 'vitest';
import type { ServerTransportHandler } from '../../src/core/transport.ts';
import { createStepper } from '../../src/testing/index.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const fast = { latencyMs: 20 };

function setup() {
  const s = createStepper({ protocol: arena, systems: arenaSystems, log: () => {}, seed: 21, clients: [{ link: { up: fast, down: fast } }] });
  const events: string[] = [];
  s.server.events.on('suspend', (_c, reason) => events.push(`suspend: ${reason}`));
  s.server.events.on('resume', () => events.push('resume'));
  s.server.events.on('leave', (_c, reason) => events.push(`leave: ${reason}`));
  s.joinAll({ name: 'p' });
  s.advance(500);
  const client = s.clients[0]!.client;
  const connection = [...s.server.connectionsInGame][0]!;
  const handler = (s.network as unknown as { serverHandler: ServerTransportHandler }).serverHandler;
  /** What a transport does to a peer that sent something it refuses: report it, then drop the link. */
  const violate = (reason: string): void => {
    handler.onPeerError!(connection.peer, reason);
    s.network.server.disconnect(connection.peer, reason);
  };
  return { s, client, connection, events, violate };
}

describe('a link the transport closes for a protocol violation', () => {
  it('ends the session (leave, no suspend); the client that tries to resume gets a fresh session', () => {
    const { s, client, connection, events, violate } = setup();
    const id = client.networkId;
    violate("react-netcode: non-binary payload on 'r' (send a Uint8Array)");
    s.advance(50);
    expect(connection.state).toBe('closed');
    expect(events).toEqual(["leave: react-netcode: protocol error from client: non-binary payload on 'r' (send a Uint8Array)"]);
    expect(s.server.connections.has(id!)).toBe(false);
    s.until(() => client.status === 'connected', 5000, 'the fresh session');
    expect(client.state.resumeFailed).toBe(true);
    expect(client.networkId).not.toBe(id); // the old id is quarantined
    expect(events).toHaveLength(1); // never resumed
  });

  it('contrast: the same link merely dropped (no violation) is suspended and resumed with the same networkId', () => {
    const { s, client, connection, events } = setup();
    const id = client.networkId;
    s.network.server.disconnect(connection.peer, 'transport close');
    s.until(() => connection.state === 'suspended', 1000, 'the suspension');
    s.until(() => client.status === 'in-game' && connection.state === 'in-game', 5000, 'the resume');
    expect(client.networkId).toBe(id);
    expect(client.state.resumeFailed).toBe(false);
    expect(events).toEqual(['suspend: transport close', 'resume']);
  });
});
