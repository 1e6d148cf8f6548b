// The stream between a room server and its workers (src/rooms/worker-wire.ts): messages and
// control operations come out of a batch in the order they went in, whatever their sizes.
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/core/transport.ts';
import { Rng } from '../../src/core/rng.ts';
import { Batcher, readBatch, type Batch } from '../../src/rooms/worker-wire.ts';

type Item = { kind: 'message'; peer: number; bytes: number[]; channel: Channel } | { kind: 'op'; op: { n: number } };

describe('worker batches', () => {
  it('keep messages and operations in order, past the first buffer size, one post per flush', () => {
    const rng = new Rng(7);
    const posted: Batch<{ n: number }>[] = [];
    const transfers: ArrayBuffer[][] = [];
    const out = new Batcher<{ n: number }>((batch, transfer) => {
      posted.push(batch);
      transfers.push(transfer);
    });
    const sent: Item[] = [];
    for (let i = 0; i < 300; i++) {
      if (rng.nextUint32() % 4 === 0) {
        sent.push({ kind: 'op', op: { n: i } });
        out.op({ n: i });
        continue;
      }
      const bytes = Array.from({ length: rng.nextUint32() % 120 }, () => rng.nextUint32() % 256);
      const item: Item = { kind: 'message', peer: 1 + (rng.nextUint32() % 1000), bytes, channel: i % 3 === 0 ? 'unreliable' : 'reliable' };
      sent.push(item);
      out.message(item.peer, Uint8Array.from(bytes), item.channel);
    }
    out.flush();
    out.flush(); // nothing new: no empty post
    expect(posted.length).toBe(1);
    expect(transfers[0]).toEqual([posted[0]!.data]);
    expect(posted[0]!.data.byteLength).toBeGreaterThan(4096); // it grew
    const got: Item[] = [];
    const messages = readBatch(posted[0]!, (peer, data, channel) => got.push({ kind: 'message', peer, bytes: [...data], channel }), (op) => got.push({ kind: 'op', op }));
    expect(got).toEqual(sent);
    expect(messages).toBe(sent.filter((s) => s.kind === 'message').length);
    expect(out.messages).toBe(messages);
    expect(out.batches).toBe(1);
  });
});
