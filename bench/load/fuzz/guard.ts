// The fuzzer's watch on the server under test: every tick() call is wrapped to count
// what escapes it (there must be nothing: the server contains failures itself) and calls
// that did not advance currentTick, attributed to the kinds of the messages received
// since the previous tick; server `error` events and the limits' totals are read too.
import type { NetServer } from '../../../src/core/server.ts';
import type { ServerTransport } from '../../../src/core/transport.ts';
import type { FuzzProtocol } from './protocol.ts';
import { violations } from './protocol.ts';
import { kindLabel, type KindLabel, type ServerTally } from './report.ts';

export class ServerGuard {
  private readonly kinds = new Set<KindLabel>();
  private readonly tallyState: Omit<ServerTally, 'violations' | 'limits'> = { ticks: 0, escaped: 0, ticksLost: 0, byKind: {}, escapes: [], errorEvents: 0 };
  private server: NetServer<FuzzProtocol> | undefined;

  /** `transport` seen through the guard: it notes the kind of every message the server receives. */
  wrap(transport: ServerTransport): ServerTransport {
    return {
      listen: (handler) =>
        transport.listen({
          ...handler,
          onMessage: (peer, data, channel) => {
            this.kinds.add(kindLabel(data));
            handler.onMessage(peer, data, channel);
          },
        }),
      send: (peer, data, channel) => transport.send(peer, data, channel),
      disconnect: (peer, reason) => transport.disconnect(peer, reason),
      close: () => transport.close(),
    };
  }

  /** Wrap `server.tick` (NetServer.update calls it through the instance, so start() is watched too). */
  watch(server: NetServer<FuzzProtocol>): void {
    this.server = server;
    const tick = server.tick.bind(server);
    server.tick = () => {
      const t = this.tallyState;
      const before = server.currentTick;
      t.ticks++;
      try {
        tick();
      } catch (error) {
        this.escaped(error);
      }
      if (server.currentTick === before) {
        t.ticksLost++;
        for (const k of this.kinds) (t.byKind[k] ??= { escaped: 0, ticksLost: 0 }).ticksLost++;
      }
      this.kinds.clear();
    };
    server.events.on('error', () => void this.tallyState.errorEvents++);
  }

  /** Escapes and lost ticks so far (a run against a broken server stops early on them). */
  get failures(): number {
    return this.tallyState.escaped + this.tallyState.ticksLost;
  }

  /** Something escaped a tick or the whole process (the child's uncaughtException handler calls this too). */
  escaped(error: unknown): void {
    const t = this.tallyState;
    t.escaped++;
    for (const k of this.kinds) (t.byKind[k] ??= { escaped: 0, ticksLost: 0 }).escaped++;
    if (t.escapes.length < 20) t.escapes.push(error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 4).join(' ← ') : String(error));
  }

  tally(): ServerTally {
    return {
      ...this.tallyState,
      byKind: { ...this.tallyState.byKind },
      escapes: [...this.tallyState.escapes],
      violations: { ...violations, examples: [...violations.examples] },
      limits: { ...(this.server?.limitTotals ?? { droppedMessages: 0, droppedBytes: 0, refusedPeers: 0, closedPeers: 0 }) },
    };
  }
}
