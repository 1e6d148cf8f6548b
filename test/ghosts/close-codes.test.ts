// Close codes: every way a client's session ends (or its link drops) sets `closeCode` with
// `closeReason`, through the real engine path on the loopback (injected time, the Stepper), and
// a new session or a resume clears both.

import { describe, expect, it } from 'vitest';
import { BitReader } from '../../src/core/bits.ts';
import { systemsFingerprint } from '../../src/core/build-check.ts';
import { MessageEncoder, readKind } from '../../src/core/messages.ts';
import { forEachMessage } from '../../src/core/outbox.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createClient, defineProtocol, field, ghost, type ClientState, type ClientTransportHandler, type CloseCode, type Logger } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { arena, arenaSystems } from '../helpers/arena.ts';

const quiet: Logger = () => {};

function inGame(options: { server?: Record<string, unknown>; engine?: Record<string, unknown>; clients?: number; log?: Logger } = {}) {
  const engine = options.engine ?? {};
  const clients = Array.from({ length: options.clients ?? 1 }, () => ({ engine }));
  const s = createStepper({ protocol: arena, systems: arenaSystems, log: options.log ?? quiet, server: options.server ?? {}, clients });
  s.joinAll({ name: 'p' });
  s.advance(200);
  const c = s.clients[0]!.client;
  const codes: (CloseCode | undefined)[] = [];
  c.events.on('status', (st) => codes.push(st.closeCode));
  const connection = () => [...s.server.connections.values()].find((conn) => conn.networkId === c.networkId)!;
  return { s, c, codes, connection };
}

/** Cut the link of the Stepper's client 0 for good: the server's side dies, and every reconnect attempt fails. */
function cutForGood(s: ReturnType<typeof inGame>['s'], peer: number): void {
  const transport = s.clients[0]!.transport;
  transport.connect = (h: ClientTransportHandler) => h.onClose('network unreachable');
  s.network.server.disconnect(peer, 'network down');
}

function expectClosed(state: Readonly<ClientState>, code: CloseCode, reason: string | RegExp): void {
  expect(state.status).toBe('closed');
  expect(state.closeCode).toBe(code);
  if (typeof reason === 'string') expect(state.closeReason).toBe(reason);
  else expect(state.closeReason).toMatch(reason);
}

describe('closeCode: why a session closed, as a code', () => {
  it("'left': the app called leave()", () => {
    const { c, codes } = inGame();
    c.leave('back to the menu');
    expectClosed(c.state, 'left', 'back to the menu');
    expect(codes).toEqual(['left']);
  });

  it("'server-closed': the server kicked it (its reason is the closeReason)", () => {
    const { s, c, connection } = inGame();
    s.server.kick(connection(), 'react-netcode: kicked for idling; join again when you are back.');
    s.advance(100);
    expectClosed(c.state, 'server-closed', 'react-netcode: kicked for idling; join again when you are back.');
  });

  it("'refused': the server is full", () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, server: { maxConnections: 1 }, clients: 1 });
    s.advance(200);
    const late = s.addClient().client;
    s.until(() => late.status === 'closed', 2000, 'the refusal');
    expectClosed(late.state, 'refused', /^react-netcode: server full \(/);
    expect(s.clients[0]!.client.state.closeCode).toBeUndefined();
  });

  it("'mismatch': the server refused another build (its Refuse reason), or another protocol", () => {
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, server: { buildId: 'v2' }, clients: 0 });
    const stale = createClient({ protocol: arena, systems: arenaSystems, buildId: 'v1', transport: s.network.createClient(), log: quiet });
    const other = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) }, join: { name: field.string(8) } });
    const foreign = createClient({ protocol: other, transport: s.network.createClient(), log: quiet });
    stale.connect();
    foreign.connect();
    for (let i = 0; i < 30 && (stale.status !== 'closed' || foreign.status !== 'closed'); i++) {
      s.tick();
      stale.update(s.now);
      foreign.update(s.now);
    }
    expectClosed(stale.state, 'mismatch', /^react-netcode: build mismatch \(client build "v1", server build "v2"\); reload the page/);
    expectClosed(foreign.state, 'mismatch', /^react-netcode: protocol mismatch \(.*reload the page for the current client\.$/);
  });

  it("'mismatch': the client refused a server whose Welcome names other shared systems", () => {
    const network = new LoopbackNetwork();
    const encoder = new MessageEncoder();
    const reader = new BitReader();
    network.server.listen({
      onConnect: () => {},
      onDisconnect: () => {},
      onMessage: (peer, data) => forEachMessage(data, (m) => {
        if (readKind(reader, m) !== MessageKind.Hello) return;
        const welcome = { networkId: 1, resumeToken: 5, serverTick: 0, resumed: false, worldSeed: 1, systemsHash: systemsFingerprint([]).hash + 1, buildId: '' };
        network.server.send(peer, encoder.welcome(welcome), 'reliable');
      }),
    });
    const client = createClient({ protocol: arena, systems: arenaSystems, transport: network.createClient(), log: quiet });
    client.connect();
    for (let t = 0; t < 10; t++) {
      network.deliver();
      client.update(t * 16);
    }
    expectClosed(client.state, 'mismatch', /^react-netcode: shared systems mismatch \(/);
  });

  it("'protocol-error': a message from the server did not decode", () => {
    const { s, c, connection } = inGame();
    s.network.server.send(connection().peer, new Uint8Array([250]), 'reliable');
    s.advance(100);
    expectClosed(c.state, 'protocol-error', /^react-netcode: protocol error from server: unknown message kind 250/);
  });

  it("'protocol-error': the transport could not carry what the server sent (onServerError), no resume", () => {
    const { s, c, codes } = inGame({ engine: { resumeGraceMs: 5000 } });
    const transport = s.clients[0]!.transport;
    // The next link's handler, once the current one is told (a transport reports through the handler it was given).
    const handlers: ClientTransportHandler[] = [];
    const connect = transport.connect.bind(transport);
    transport.connect = (h, intent) => {
      handlers.push(h);
      connect(h, intent);
    };
    // Reconnect once so the test holds the live link's handler (a resume: the session goes on).
    s.network.server.disconnect([...s.server.connections.values()][0]!.peer, 'blip');
    s.until(() => c.status === 'in-game' && handlers.length === 1, 5000, 'the resume');
    codes.length = 0;
    handlers[0]!.onServerError?.('react-netcode: the server sent a non-binary payload on \'r\'');
    handlers[0]!.onClose('closed by the transport');
    s.advance(100);
    expectClosed(c.state, 'protocol-error', "react-netcode: protocol error from server: the server sent a non-binary payload on 'r'");
    s.advance(6000);
    expect(handlers).toHaveLength(1); // no reconnect attempt
    expect(codes).toEqual(['protocol-error']);
  });

  it("'connect-failed': the link closed before the handshake (no server listening)", () => {
    const network = new LoopbackNetwork();
    const client = createClient({ protocol: arena, transport: network.createClient(), log: quiet });
    client.connect();
    network.deliver();
    client.update(16);
    expectClosed(client.state, 'connect-failed', 'react-netcode: loopback server is not listening');
  });

  it("'connect-failed', 'server-closed' and 'lost' are logged once as warnings (the others are logged where they are found)", () => {
    const warned: string[] = [];
    const log: Logger = (level, message) => void (level === 'warn' && warned.push(message));
    const network = new LoopbackNetwork();
    const client = createClient({ protocol: arena, transport: network.createClient(), log });
    client.connect();
    network.deliver();
    client.update(16);
    expect(warned).toEqual(['react-netcode: loopback server is not listening']);

    warned.length = 0;
    const kicked = inGame({ log });
    kicked.s.server.kick(kicked.connection(), 'kicked for idling');
    kicked.s.advance(100);
    expect(warned).toEqual(['react-netcode: the connection closed: kicked for idling']);

    warned.length = 0;
    const cut = inGame({ log, engine: { resumeGraceMs: 0 } });
    cut.s.network.server.disconnect(cut.connection().peer, 'network down');
    cut.s.advance(100);
    expectClosed(cut.c.state, 'lost', 'network down');
    expect(warned).toEqual(['react-netcode: the connection closed: network down']);
  });

  it("'dropped' while reconnecting (the link's reason), then 'lost' when the grace is over", () => {
    const { s, c, codes, connection } = inGame({ engine: { resumeGraceMs: 2000 } });
    cutForGood(s, connection().peer);
    s.advance(100);
    expect(c.status).toBe('reconnecting');
    expect(c.state.closeCode).toBe('dropped');
    expect(c.state.closeReason).toBe('network down');
    s.until(() => c.status === 'closed', 5000, 'the grace');
    expectClosed(c.state, 'lost', /^react-netcode: connection lost: could not resume within 2000 ms \(network down\); call connect\(\)/);
    expect(codes).toEqual(['dropped', 'lost']);
  });

  it("'dropped' for a silent link, cleared (with the reason) when the session resumes", () => {
    const fast = { latencyMs: 20 };
    const s = createStepper({ protocol: arena, systems: arenaSystems, log: quiet, clients: [{ link: { up: fast, down: fast } }] });
    s.joinAll({ name: 'p' });
    s.advance(200);
    const { client: c, link } = s.clients[0]!;
    const codes: (CloseCode | undefined)[] = [];
    c.events.on('status', (st) => codes.push(st.closeCode));
    link!.setOptions({ up: { ...fast, loss: 1 }, down: { ...fast, loss: 1 } }); // every packet lost, the link "open"
    s.until(() => c.status === 'reconnecting', 10_000, 'the silence to count as a drop');
    expect(c.state.closeCode).toBe('dropped');
    expect(c.state.closeReason).toMatch(/^react-netcode: the server sent nothing for 8000 ms/);
    link!.setOptions({ up: fast, down: fast });
    s.until(() => c.status === 'in-game', 5000, 'the resume');
    expect(c.state.closeCode).toBeUndefined();
    expect(c.state.closeReason).toBeUndefined();
    expect(codes).toEqual(['dropped', undefined]);
  });

  it("'lost' at once when reconnection is off (resumeGraceMs 0); connect() clears the code", () => {
    const { s, c, connection } = inGame({ engine: { resumeGraceMs: 0 } });
    s.network.server.disconnect(connection().peer, 'network down');
    s.advance(100);
    expectClosed(c.state, 'lost', 'network down');
    c.connect();
    expect(c.state.closeCode).toBeUndefined();
    expect(c.state.closeReason).toBeUndefined();
    s.until(() => c.status === 'connected', 2000, 'a new session');
  });
});
