// Batching (outbox.ts, server-outbox.ts): one transport write per channel per frame or
// tick; a lone message goes out unchanged, several as one Batch that splits back into
// the same messages; malformed batches are refused whole; nothing is ever dropped.
import { describe, expect, it } from 'vitest';
import { forEachMessage, Outbox } from '../../src/core/outbox.ts';
import { ServerOutbox } from '../../src/core/server-outbox.ts';
import type { Channel, PeerId, ServerTransport } from '../../src/core/transport.ts';
import { MAX_MESSAGE_BYTES, MessageKind } from '../../src/core/wire.ts';
import { isNetcodeError } from '../../src/core/errors.ts';

const msg = (kind: number, ...body: number[]) => Uint8Array.from([kind, ...body]);
type Write = { bytes: Uint8Array; channel: Channel; messages: number };

function flushAll(box: Outbox): Write[] {
  const writes: Write[] = [];
  box.flush((bytes, channel, messages) => writes.push({ bytes, channel, messages }));
  return writes;
}
function split(data: Uint8Array): number[][] {
  const parts: number[][] = [];
  forEachMessage(data, (m) => parts.push([...m]));
  return parts;
}

describe('Outbox', () => {
  it("queues a copy of the first `length` bytes of a buffer (a writer's, reused at once)", () => {
    const box = new Outbox();
    const buf = new Uint8Array(600);
    buf.set([MessageKind.Ping, 1, 2, 3, 4, 99, 99]);
    box.push(buf, 'unreliable', 5);
    buf.fill(7); // the writer moves on
    const big = new Uint8Array(400).fill(5);
    big[0] = MessageKind.Ping;
    box.push(big, 'unreliable', 300); // longer than the byte-by-byte copy
    big.fill(0);
    const writes = flushAll(box);
    expect(writes).toHaveLength(1);
    expect(split(writes[0]!.bytes)).toEqual([[MessageKind.Ping, 1, 2, 3, 4], [MessageKind.Ping, ...new Array<number>(299).fill(5)]]);
    expect(() => box.push(buf, 'unreliable', 601)).toThrow(/react-netcode: Outbox.push length 601/);
  });

  it('a lone message is written as it is; two or more as one Batch per channel, reliable first', () => {
    const box = new Outbox();
    box.push(msg(MessageKind.Ping, 1, 2, 3, 4), 'unreliable');
    let writes = flushAll(box);
    expect(writes).toHaveLength(1);
    expect([...writes[0]!.bytes]).toEqual([MessageKind.Ping, 1, 2, 3, 4]);
    expect(box.size).toBe(0);

    const input = msg(MessageKind.Input, 9, 9);
    box.push(input, 'unreliable');
    box.push(msg(MessageKind.Ping, 5, 6, 7, 8), 'unreliable');
    box.push(msg(MessageKind.Rpc, 0), 'reliable');
    input.fill(0); // the outbox copied it: the caller may reuse its buffer
    writes = flushAll(box);
    expect(writes.map((w) => [w.channel, w.messages])).toEqual([['reliable', 1], ['unreliable', 2]]);
    // Batch kind, then (length, bytes) per message: [14, 3, 11, 9, 9, 5, 12, 5, 6, 7, 8]
    expect([...writes[1]!.bytes]).toEqual([MessageKind.Batch, 3, MessageKind.Input, 9, 9, 5, MessageKind.Ping, 5, 6, 7, 8]);
    expect(split(writes[1]!.bytes)).toEqual([[MessageKind.Input, 9, 9], [MessageKind.Ping, 5, 6, 7, 8]]);
  });

  it('splits rather than exceed MAX_MESSAGE_BYTES, and keeps the order', () => {
    const box = new Outbox();
    const big = new Uint8Array(MAX_MESSAGE_BYTES - 6).fill(7);
    big[0] = MessageKind.Snapshot;
    box.push(msg(MessageKind.Pong, 1), 'unreliable');
    box.push(big, 'unreliable'); // kind + (1 + 2) + (≤ 5 + 65,530) > 65,536: the Pong goes alone first
    box.push(msg(MessageKind.Pong, 2), 'unreliable'); // and again: the snapshot alone, then this Pong
    box.push(msg(MessageKind.Pong, 3), 'unreliable');
    const writes = flushAll(box);
    expect(writes.map((w) => w.messages)).toEqual([1, 1, 2]);
    for (const w of writes) expect(w.bytes.byteLength).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect([...writes[0]!.bytes]).toEqual([MessageKind.Pong, 1]);
    expect(writes[1]!.bytes.byteLength).toBe(big.byteLength); // a lone message, as it is
    expect(split(writes[2]!.bytes)).toEqual([[MessageKind.Pong, 2], [MessageKind.Pong, 3]]);
  });

  it('refuses a malformed batch before visiting any part', () => {
    const bad: [string, number[]][] = [
      ['one entry', [MessageKind.Batch, 1, MessageKind.Ping]],
      ['empty', [MessageKind.Batch]],
      ['zero length', [MessageKind.Batch, 1, 5, 0, 1, 12]],
      ['truncated entry', [MessageKind.Batch, 1, 12, 4, 12, 1]],
      ['truncated length', [MessageKind.Batch, 1, 12, 0x80]],
      ['nested batch', [MessageKind.Batch, 1, 12, 2, MessageKind.Batch, 0]],
      ['overlong length', [MessageKind.Batch, 0xff, 0xff, 0xff, 0xff, 0x7f]],
    ];
    for (const [what, bytes] of bad) {
      let visited = 0;
      let error: unknown;
      try {
        forEachMessage(Uint8Array.from(bytes), () => visited++);
      } catch (e) {
        error = e;
      }
      expect(isNetcodeError(error), what).toBe(true);
      expect(visited, what).toBe(0);
    }
  });

  it('parts of a batch received at a non-zero byteOffset are views at the right place', () => {
    const backing = new Uint8Array(32).fill(0xaa);
    const data = backing.subarray(5, 5 + 8);
    data.set([MessageKind.Batch, 2, MessageKind.Joined, 0, 3, MessageKind.Pong, 1, 2]);
    expect(split(data)).toEqual([[MessageKind.Joined, 0], [MessageKind.Pong, 1, 2]]);
  });
});

describe('ServerOutbox', () => {
  function fake() {
    const log: string[] = [];
    const transport: ServerTransport = {
      listen: () => {},
      send: (peer: PeerId, data: Uint8Array, channel: Channel) => log.push(`send ${peer} ${channel} ${[...data].join(',')}`),
      disconnect: (peer: PeerId, reason: string) => log.push(`disconnect ${peer} ${reason}`),
      close: () => {},
    };
    return { log, out: new ServerOutbox(transport) };
  }

  it('writes each peer once per tick in the order first queued, also when a forgotten peer id comes back within the tick', () => {
    const { log, out } = fake();
    for (let tick = 0; tick < 3; tick++) {
      out.begin();
      out.send(2, msg(MessageKind.Pong, tick), 'unreliable');
      out.send(1, msg(MessageKind.Pong, tick), 'unreliable');
      out.send(2, msg(MessageKind.Snapshot, tick), 'unreliable');
      out.end();
    }
    expect(log).toEqual([0, 1, 2].flatMap((t) => [`send 2 unreliable ${MessageKind.Batch},2,13,${t},2,9,${t}`, `send 1 unreliable 13,${t}`]));
    log.length = 0;
    out.begin();
    out.send(7, msg(MessageKind.Pong, 1), 'unreliable');
    out.forget(7); // the peer left: its queue is dropped
    out.send(7, msg(MessageKind.Pong, 2), 'unreliable'); // a new peer with the same id, in the same tick
    out.end();
    expect(log).toEqual(['send 7 unreliable 13,2']);
  });

  it('during a tick queues per peer and writes once per channel at its end; outside a tick writes at once', () => {
    const { log, out } = fake();
    out.send(1, msg(MessageKind.Welcome, 1), 'reliable');
    expect(log).toEqual(['send 1 reliable 2,1']);
    out.begin();
    out.send(1, msg(MessageKind.Pong, 1), 'unreliable');
    out.send(2, msg(MessageKind.Pong, 2), 'unreliable');
    out.send(1, msg(MessageKind.Snapshot, 3), 'unreliable');
    expect(log).toHaveLength(1);
    out.end();
    expect(log.slice(1)).toEqual([`send 1 unreliable ${MessageKind.Batch},2,13,1,2,9,3`, 'send 2 unreliable 13,2']);
    expect(out.stats).toEqual({ writes: 3, messages: 4 });
  });

  it('disconnecting a peer writes what is queued for it first (a Close reason is never lost)', () => {
    const { log, out } = fake();
    out.begin();
    out.send(3, msg(MessageKind.Close, 0), 'reliable');
    out.disconnect(3, 'kicked');
    out.end();
    expect(log).toEqual(['send 3 reliable 8,0', 'disconnect 3 kicked']);
  });
});
