// The default snapshot budget follows the transport's datagram size: a transport that says
// `maxDatagramBytes` (WebRTC: 1100) caps the default 1200 to it, so every snapshot fits one
// packet; an app's own `snapshotBudgetBytes` is kept as given.
import { describe, expect, it } from 'vitest';
import { createClient, createServer, defineProtocol, field, ghost } from '../../src/index.ts';
import { forEachMessage } from '../../src/core/outbox.ts';
import type { ClientTransport, ServerTransport } from '../../src/core/transport.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';

const protocol = defineProtocol({ ghosts: { thing: ghost({ x: field.f32(), y: field.f32(), z: field.f32() }) } });

/** The largest Snapshot message a client received, with 400 ghosts changing every tick. */
function largestSnapshot(server: { maxDatagramBytes?: number; snapshotBudgetBytes?: number }): number {
  const network = new LoopbackNetwork();
  const transport: ServerTransport = { ...network.server, ...(server.maxDatagramBytes ? { maxDatagramBytes: server.maxDatagramBytes } : {}) };
  const s = createServer({ protocol, transport, log: () => {}, ...(server.snapshotBudgetBytes ? { snapshotBudgetBytes: server.snapshotBudgetBytes } : {}) });
  const things = Array.from({ length: 400 }, () => s.spawn('thing', {}));
  let largest = 0;
  const raw = network.createClient();
  const recording: ClientTransport = {
    ...raw,
    connect: (handler) => raw.connect({
      ...handler,
      onMessage: (data, channel) => {
        forEachMessage(data, (m) => { if (m[0] === MessageKind.Snapshot) largest = Math.max(largest, m.byteLength); });
        handler.onMessage(data, channel);
      },
    }),
  };
  const client = createClient({ protocol, transport: recording, log: () => {} });
  s.listen();
  client.connect();
  for (let t = 0; t < 3000; t += 16) {
    for (const g of things) g.components.x = Math.sin(t + g.id) * 100;
    s.update(t);
    client.update(t);
    if (client.status === 'connected') client.join({});
    network.deliver();
  }
  return largest;
}

describe("snapshot budget and the transport's datagram size", () => {
  it('caps the default budget to maxDatagramBytes', () => {
    const uncapped = largestSnapshot({});
    const capped = largestSnapshot({ maxDatagramBytes: 300 });
    expect(uncapped).toBeGreaterThan(300); // 400 changing ghosts fill the default 1200
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThanOrEqual(300);
  });

  it("keeps the app's own budget", () => {
    expect(largestSnapshot({ maxDatagramBytes: 300, snapshotBudgetBytes: 800 })).toBeGreaterThan(300);
  });
});
