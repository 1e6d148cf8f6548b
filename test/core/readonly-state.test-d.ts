// Engine state a game reads but must not write: the Welcome's tick and seed, the server's clock,
// every NetworkTime field, and the engines' events, which a game listens to but cannot emit or clear.
import { describe, expectTypeOf, it } from 'vitest';
import {
  createClient, createServer, defineProtocol, field, ghost, LoopbackNetwork,
  type ClientEvents, type ClientState, type Listenable, type ServerEvents, type Tick,
} from '../../src/index.ts';

const protocol = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) } });
type P = typeof protocol;
const network = new LoopbackNetwork();
const client = createClient({ protocol, transport: network.createClient() });
const server = createServer({ protocol, transport: network.server });

describe('engine state is read-only to games', () => {
  it('client.welcomeTick and client.worldSeed read as numbers and cannot be written', () => {
    expectTypeOf(client.welcomeTick).toEqualTypeOf<number>();
    expectTypeOf(client.worldSeed).toEqualTypeOf<number>();
    // @ts-expect-error the Welcome's tick is the engine's
    client.welcomeTick = 0;
    // @ts-expect-error the world seed is the engine's
    client.worldSeed = 0;
  });

  it('server.currentTick and server.timeMs read and cannot be written', () => {
    expectTypeOf(server.currentTick).toEqualTypeOf<Tick>();
    expectTypeOf(server.timeMs).toEqualTypeOf<number>();
    // @ts-expect-error the server's tick advances only in tick()
    server.currentTick = 0;
    // @ts-expect-error server time advances only in tick()
    server.timeMs = 0;
  });

  it('every NetworkTime field reads and none can be written', () => {
    const t = client.time;
    expectTypeOf(t.rttMs).toEqualTypeOf<number>();
    expectTypeOf(t.jitterMs).toEqualTypeOf<number>();
    expectTypeOf(t.serverTick).toEqualTypeOf<number>();
    expectTypeOf(t.predictedTick).toEqualTypeOf<Tick>();
    expectTypeOf(t.predictedFraction).toEqualTypeOf<number>();
    expectTypeOf(t.interpolationTick).toEqualTypeOf<Tick>();
    expectTypeOf(t.interpolationFraction).toEqualTypeOf<number>();
    expectTypeOf(t.isFirstTimeFullyPredictingTick).toEqualTypeOf<boolean>();
    expectTypeOf(t.isResimulating).toEqualTypeOf<boolean>();
    expectTypeOf(t.timeScale).toEqualTypeOf<number>();
    expectTypeOf(t.inputDelayTicks).toEqualTypeOf<number>();
    // @ts-expect-error read-only
    t.rttMs = 0;
    // @ts-expect-error read-only
    t.jitterMs = 0;
    // @ts-expect-error read-only
    t.serverTick = 0;
    // @ts-expect-error read-only
    t.predictedTick = 0;
    // @ts-expect-error read-only
    t.predictedFraction = 0;
    // @ts-expect-error read-only
    t.interpolationTick = 0;
    // @ts-expect-error read-only
    t.interpolationFraction = 0;
    // @ts-expect-error read-only
    t.isFirstTimeFullyPredictingTick = false;
    // @ts-expect-error read-only
    t.isResimulating = true;
    // @ts-expect-error read-only
    t.timeScale = 1;
    // @ts-expect-error read-only
    t.inputDelayTicks = 0;
  });

  it('client.events can be listened to, not emitted on or cleared', () => {
    expectTypeOf(client.events).toEqualTypeOf<Listenable<ClientEvents>>();
    expectTypeOf(client.events.on('status', (state) => expectTypeOf(state).toEqualTypeOf<Readonly<ClientState>>())).toEqualTypeOf<() => void>();
    expectTypeOf(client.events.has('error')).toEqualTypeOf<boolean>();
    expectTypeOf(client.events.listenerCount).toEqualTypeOf<number>();
    // @ts-expect-error a game cannot fake a status change
    client.events.emit('status', client.state);
    // @ts-expect-error nor drop every listener (the React provider's among them)
    client.events.clear();
  });

  it('server.events can be listened to, not emitted on or cleared', () => {
    expectTypeOf(server.events).toEqualTypeOf<Listenable<ServerEvents<P>>>();
    expectTypeOf(server.events.on('join', (c) => expectTypeOf(c.networkId).toEqualTypeOf<number>())).toEqualTypeOf<() => void>();
    expectTypeOf(server.events.has('leave')).toEqualTypeOf<boolean>();
    expectTypeOf(server.events.listenerCount).toEqualTypeOf<number>();
    const [connection] = server.connections.values();
    // @ts-expect-error a game cannot fake a join
    server.events.emit('join', connection!);
    // @ts-expect-error nor drop every listener
    server.events.clear();
    // @ts-expect-error listenerCount is a reading
    server.events.listenerCount = 0;
  });
});
