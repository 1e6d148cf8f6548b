// A deterministic room harness in the Stepper's manner: one RoomServer on a LoopbackNetwork and
// a VirtualScheduler, clients created from seats, all stepped in 1 ms frames of virtual time
// (the server each ms, clients every 1000/60 ms). Matchmaking calls are awaited by the tests;
// the in-memory directory answers synchronously, so nothing depends on wall time.
import { createClient, type NetClient } from '../../src/core/client.ts';
import type { Protocol } from '../../src/core/protocol.ts';
import type { ClientTransport } from '../../src/core/transport.ts';
import { Rng } from '../../src/core/rng.ts';
import type { SystemDef } from '../../src/core/system.ts';
import { RoomServer, seatedTransport, type RoomServerOptions, type Seat } from '../../src/rooms/index.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { VirtualScheduler } from '../../src/transport/scheduler.ts';
import { arena, arenaSystems, type Arena } from '../helpers/arena.ts';

export interface HarnessClient<P extends Protocol> {
  readonly client: NetClient<P>;
  readonly seat: Seat | string;
  nextFrameAt: number;
}

export class RoomHarness {
  readonly scheduler = new VirtualScheduler();
  readonly network = new LoopbackNetwork();
  readonly server: RoomServer;
  readonly clients: HarnessClient<Protocol>[] = [];
  readonly logs: string[] = [];
  private time = 0;

  constructor(options: Omit<RoomServerOptions, 'transport' | 'scheduler'>, seed = 1) {
    const rng = new Rng(seed);
    this.server = new RoomServer({
      random: () => rng.nextUint32(),
      log: (level, m) => this.logs.push(`${level}: ${m}`),
      ...options,
      transport: this.network.server,
      scheduler: this.scheduler,
    });
  }

  get now(): number {
    return this.time;
  }

  /** A client of `protocol` that connects with `seat` (a Seat or a bare token), over `inner` (a loopback client by default). */
  addClient<P extends Protocol>(protocol: P, seat: Seat | string, systems?: readonly SystemDef<P>[], inner: ClientTransport = this.network.createClient()): NetClient<P> {
    const client = createClient({
      protocol,
      transport: seatedTransport(inner, seat),
      ...(systems ? { systems } : {}),
      now: () => this.time,
      log: (level, m) => this.logs.push(`client ${level}: ${m}`),
    });
    this.clients.push({ client: client as unknown as NetClient<Protocol>, seat, nextFrameAt: this.time });
    client.connect();
    return client;
  }

  /** `addClient` for the arena, then connected and joined as `name`: the client in game. */
  inGame(seat: Seat | string, name = 'p', inner?: ClientTransport): NetClient<Arena> {
    const c = this.addClient(arena, seat, arenaSystems, inner);
    this.until(() => c.status === 'connected', 'connect');
    c.join({ name });
    this.until(() => c.status === 'in-game', 'in game');
    return c;
  }

  advance(ms: number): void {
    const target = this.time + ms;
    while (this.time < target) {
      this.time++;
      this.scheduler.advanceTo(this.time);
      this.network.deliver();
      this.server.update(this.time);
      for (const c of this.clients) {
        if (c.nextFrameAt > this.time) continue;
        c.client.update(this.time);
        c.nextFrameAt += 1000 / 60;
      }
    }
  }

  /** `ms` pass in one step, as in a process that stalled: one server update at the end, no frames between. */
  jump(ms: number): void {
    this.time += ms;
    this.scheduler.advanceTo(this.time);
    this.network.deliver();
    this.server.update(this.time);
  }

  /** Advance until `predicate()` holds (at most `maxMs`); throws naming `what` otherwise. */
  until(predicate: () => boolean, what: string, maxMs = 5000): number {
    const start = this.time;
    while (!predicate()) {
      if (this.time - start >= maxMs) throw new Error(`harness: timed out after ${maxMs} ms waiting for ${what}`);
      this.advance(1);
    }
    return this.time - start;
  }
}
