// The build check of the handshake: a client whose shared systems (names, order) or
// build id differ from the server's is refused on both sides with a message that says
// what to do; server-only and client-only systems may differ.
import { describe, expect, it } from 'vitest';
import { createClient, defineProtocol, defineSystems, field, ghost, system, type Logger, type SystemDef } from '../../src/index.ts';
import { BitReader } from '../../src/core/bits.ts';
import { systemsFingerprint } from '../../src/core/build-check.ts';
import { MessageEncoder, readHello, readKind, type Hello } from '../../src/core/messages.ts';
import { forEachMessage } from '../../src/core/outbox.ts';
import { MAX_REASON_LENGTH, MessageKind, WIRE_VERSION } from '../../src/core/wire.ts';
import { createStepper } from '../../src/testing/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { rawMessage, rawPeer } from '../helpers/raw-peer.ts';

const protocol = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) }, join: { name: field.string(8) } });
type P = typeof protocol;
const move = system.shared<P>('move', () => {});
const fall = system.shared<P>('fall', () => {});
const damage = system.server<P>('damage', () => {});
const sound = system.client<P>('sound', () => {});
const serverSystems = defineSystems(protocol, [move, damage, fall]);
const hex = (systems: readonly SystemDef<P>[]): string => systemsFingerprint(systems).hash.toString(16).padStart(8, '0');

/** A client with its own systems and build id on the Stepper's network, stepped with it until it settles. */
function connect(clientSystems: readonly SystemDef<P>[] | undefined, builds: { client?: string; server?: string } = {}) {
  const lines: string[] = [];
  const serverLines: string[] = [];
  const s = createStepper({
    protocol, systems: serverSystems, clients: 0, log: (_l, m) => serverLines.push(m), server: builds.server === undefined ? {} : { buildId: builds.server },
  });
  const log: Logger = (level, m) => level === 'error' && lines.push(m);
  const client = createClient({ protocol, ...(clientSystems === undefined ? {} : { systems: clientSystems }), transport: s.network.createClient(), log, ...(builds.client === undefined ? {} : { buildId: builds.client }) });
  client.connect();
  for (let i = 0; i < 30 && client.status === 'connecting'; i++) {
    s.tick();
    client.update(s.now);
  }
  s.tick(2);
  return { s, client, lines, serverLines };
}

describe('systems fingerprint and build id at the handshake', () => {
  it('fingerprints the shared systems by name and order only', () => {
    const a = systemsFingerprint([move, damage, fall]);
    expect(a.describe).toBe('shared=["move","fall"]');
    expect(systemsFingerprint([move, fall, sound]).hash).toBe(a.hash);
    expect(systemsFingerprint([fall, move]).hash).not.toBe(a.hash);
    expect(systemsFingerprint([move]).hash).not.toBe(a.hash);
  });

  it('lets a client in whose server-only and client-only systems differ from the server\'s', () => {
    const { s, client } = connect([move, fall, sound]);
    expect(client.status).toBe('connected');
    expect(s.server.connections.size).toBe(1);
  });

  it('refuses a client whose shared systems run in another order, saying what to do; the server keeps no connection', () => {
    const { s, client, lines } = connect([fall, move, sound]);
    expect(client.status).toBe('closed');
    expect(client.state.closeReason).toBe(
      `react-netcode: shared systems mismatch (client ${hex([fall, move])}, server ${hex([move, fall])}); build both from one defineSystems list (same shared systems, names and order), deploy them together and reload the page.`,
    );
    expect(lines).toEqual([client.state.closeReason]);
    expect(s.server.connections.size).toBe(0);
  });

  it('logs each refused build on the server too, as it does a protocol mismatch (a stale client after a deploy shows there)', () => {
    const systems = connect([fall, move]);
    expect(systems.serverLines.filter((m) => m.includes('refused the handshake'))).toEqual([
      `react-netcode: refused the handshake of peer 1: ${systems.client.state.closeReason!.replace(/^react-netcode: /, '')}`,
    ]);
    const build = connect([move, fall], { client: 'abc123', server: 'def456' });
    expect(build.serverLines.some((m) => /^react-netcode: refused the handshake of peer 1: build mismatch \(client build "abc123"/.test(m))).toBe(true);
  });

  it('refuses a client that lacks a shared system, or whose list is empty', () => {
    expect(connect([move]).client.state.closeReason).toMatch(/shared systems mismatch/);
    expect(connect([]).client.state.closeReason).toMatch(/shared systems mismatch/);
  });

  it('lets in a client created without systems (a viewer, a bot, a test probe: it predicts nothing), but still checks its build id', () => {
    const { s, client } = connect(undefined);
    expect(client.status).toBe('connected');
    expect(s.server.connections.size).toBe(1);
    expect(connect(undefined, { server: 'b2' }).client.state.closeReason).toMatch(/build mismatch/);
  });

  it('refuses a client of another build id, and one without the build id the server has', () => {
    const other = connect([move, fall], { client: 'abc123', server: 'def456' });
    expect(other.client.state.closeReason).toBe(
      'react-netcode: build mismatch (client build "abc123", server build "def456"); reload the page for the current client, or deploy client and server from one build (buildId option).',
    );
    expect(connect([move, fall], { server: 'def456' }).client.state.closeReason).toMatch(/client build \(none\), server build "def456"/);
    expect(connect([move, fall], { client: 'def456', server: 'def456' }).client.status).toBe('connected');
  });

  it('refuses a Hello of another wire version as a version mismatch, not a protocol error', () => {
    const s = createStepper({ protocol, systems: serverSystems, clients: 0, log: () => {} });
    const peer = rawPeer(s.network);
    s.tick(2);
    // WIRE_VERSION 4's Hello: hash, version, resume token, resume id — and nothing after.
    peer.send(rawMessage((w) => (w.writeBits(MessageKind.Hello, 8), w.writeBits(protocol.hash, 32), w.writeBits(4, 8), w.writeBits(0, 32), w.writeVarUint(0))));
    s.tick(2);
    expect(peer.reasons).toHaveLength(1);
    expect(peer.reasons[0]).toMatch(new RegExp(
      `^react-netcode: protocol mismatch \\(client protocol [0-9a-f]{8} on wire format v4, server [0-9a-f]{8} on v${WIRE_VERSION}: two react-netcode versions\\); ` +
        'build both with one react-netcode version, deploy them together and reload the page for the current client\\.$',
    ));
    expect(peer.reasons[0]!.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
  });

  it('the client refuses a server whose Welcome names other shared systems (a server that does not check)', () => {
    const network = new LoopbackNetwork();
    const encoder = new MessageEncoder();
    const reader = new BitReader();
    const hellos: Hello[] = [];
    const closes: string[] = [];
    network.server.listen({
      onConnect: () => {},
      onDisconnect: () => {},
      onMessage: (peer, data) =>
        forEachMessage(data, (m) => {
          const kind = readKind(reader, m);
          if (kind === MessageKind.Close) closes.push(reader.readString(256));
          if (kind !== MessageKind.Hello) return;
          hellos.push(readHello(reader));
          const welcome = { networkId: 1, resumeToken: 5, serverTick: 0, resumed: false, worldSeed: 1, systemsHash: systemsFingerprint([fall]).hash, buildId: '' };
          network.server.send(peer, encoder.welcome(welcome), 'reliable');
        }),
    });
    const lines: string[] = [];
    const client = createClient({ protocol, systems: [move, fall], transport: network.createClient(), log: (_l, m) => lines.push(m) });
    client.connect();
    for (let t = 0; t < 10; t++) {
      network.deliver();
      client.update(t * 16);
    }
    expect(hellos).toEqual([{ protocolHash: protocol.hash, wireVersion: WIRE_VERSION, resumeToken: 0, resumeId: 0, systemsHash: systemsFingerprint([move, fall]).hash, buildId: '' }]);
    expect(client.status).toBe('closed');
    expect(client.state.closeReason).toMatch(`react-netcode: shared systems mismatch (client ${hex([move, fall])}, server ${hex([fall])})`);
    expect(closes).toEqual([client.state.closeReason]);
    expect(lines).toEqual([`${client.state.closeReason} This client's shared=["move","fall"].`]);
  });

  it('refuses a buildId longer than 64 characters at construction', () => {
    const s = createStepper({ protocol, clients: 0 });
    expect(() => createClient({ protocol, transport: s.network.createClient(), buildId: 'x'.repeat(65) })).toThrow(/^react-netcode: buildId must be a string of at most 64 characters/);
  });
});

describe('the protocol mismatch reason', () => {
  it('names the protocol hashes and the wire format version, and says to reload the page, within a Refuse reason', async () => {
    const { protocolMismatch } = await import('../../src/core/build-check.ts');
    const same = protocolMismatch({ protocolHash: 0x7dd6b189, wireVersion: 6 }, { protocolHash: 0x67538d5a, wireVersion: 6 });
    expect(same).toBe(
      'react-netcode: protocol mismatch (client protocol 7dd6b189, server 67538d5a; both wire format v6): build client and server from the same defineProtocol, ' +
        'deploy them together and reload the page for the current client.',
    );
    const other = protocolMismatch({ protocolHash: 0xffffffff, wireVersion: 255 }, { protocolHash: 0x1, wireVersion: 6 });
    expect(other).toMatch(/^react-netcode: protocol mismatch \(client protocol ffffffff on wire format v255, server 00000001 on v6: two react-netcode versions\); build both with one react-netcode version, deploy them together and reload the page/);
    for (const reason of [same, other]) expect(reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
  });
});

describe('isMismatch (the client reads its close code from a Refuse reason)', () => {
  it('recognises every mismatch reason the build check writes, and no other refusal', async () => {
    const { buildMismatch, isMismatch, protocolMismatch } = await import('../../src/core/build-check.ts');
    const local = { systemsHash: 1, systems: 'shared=["a"]', buildId: 'v1' };
    const mismatches = [
      protocolMismatch({ protocolHash: 1, wireVersion: 6 }, { protocolHash: 2, wireVersion: 6 }),
      protocolMismatch({ protocolHash: 1, wireVersion: 5 }, { protocolHash: 1, wireVersion: 6 }),
      buildMismatch('server', local, { systemsHash: 1, buildId: 'v2' }),
      buildMismatch('server', local, { systemsHash: 2, buildId: 'v1' }),
      buildMismatch('client', local, { systemsHash: 2, buildId: 'v1' }),
    ];
    for (const reason of mismatches) expect(isMismatch(reason!), reason!).toBe(true);
    for (const reason of ['react-netcode: server full (…, maxConnections 1); try again later.', 'react-netcode: the server is busy (too many links waiting for their seat); try again shortly.', 'protocol mismatch (', ''])
      expect(isMismatch(reason), reason).toBe(false);
  });
});
