// Engine state a game reads but must not write: the Welcome's tick and seed, the server's clock,
// every NetworkTime field, prediction's progress, and every events object a game reaches (client,
// server, ghosts, prediction, room server), which a game listens to but cannot emit on or clear.
import { describe, expectTypeOf, it } from 'vitest';
import {
  createClient, createServer, defineProtocol, field, ghost, LoopbackNetwork,
  type ClientEvents, type ClientPrediction, type ClientState, type Ghost, type GhostEvents, type Listenable,
  type Misprediction, type PredictionEvents, type ServerEvents, type Tick,
} from '../../src/index.ts';
import type { Room, RoomServer, RoomServerEvents } from '../../src/rooms/index.ts';

const protocol = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) } });
type P = typeof protocol;
const network = new LoopbackNetwork();
const client = createClient({ protocol, transport: network.createClient() });
const server = createServer({ protocol, transport: network.server });
declare const prediction: ClientPrediction<P>;
declare const roomServer: RoomServer;

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

  it('client.ghosts.events can be listened to, not emitted on or cleared', () => {
    const events = client.ghosts.events;
    expectTypeOf(events).toEqualTypeOf<Listenable<GhostEvents<P>>>();
    expectTypeOf(events.on('spawn', (g) => expectTypeOf(g).toEqualTypeOf<Ghost<P>>())).toEqualTypeOf<() => void>();
    events.on('update', (g, tick) => {
      expectTypeOf(g.components.x).toEqualTypeOf<number>();
      expectTypeOf(tick).toEqualTypeOf<Tick>();
    });
    events.on('despawn', (g) => expectTypeOf(g).toEqualTypeOf<Ghost<P>>());
    events.on('matched', (g) => expectTypeOf(g).toEqualTypeOf<Ghost<P>>());
    events.on('mode', (_g, mode) => expectTypeOf(mode).toEqualTypeOf<'predicted' | 'interpolated'>());
    expectTypeOf(events.has('spawn')).toEqualTypeOf<boolean>();
    expectTypeOf(events.listenerCount).toEqualTypeOf<number>();
    const [cube] = client.world.all();
    // @ts-expect-error a game cannot fake a spawn (the React provider would mount a component for it)
    events.emit('spawn', cube!);
    // @ts-expect-error nor a mode switch
    events.emit('mode', cube!, 'predicted');
    // @ts-expect-error nor drop every listener (the provider's and r3f's among them)
    events.clear();
    // @ts-expect-error listenerCount is a reading
    events.listenerCount = 0;
  });

  it('client.prediction.events can be listened to, not emitted on or cleared', () => {
    const events = prediction.events;
    expectTypeOf(events).toEqualTypeOf<Listenable<PredictionEvents>>();
    expectTypeOf(events.on('misprediction', (m) => expectTypeOf(m).toEqualTypeOf<Misprediction>())).toEqualTypeOf<() => void>();
    events.on('correction', (c) => {
      expectTypeOf(c.ghostId).toEqualTypeOf<number>();
      expectTypeOf(c.distance).toEqualTypeOf<number>();
      expectTypeOf(c.tick).toEqualTypeOf<Tick>();
    });
    events.on('rollbackCapped', (ghostId, depth) => {
      expectTypeOf(ghostId).toEqualTypeOf<number>();
      expectTypeOf(depth).toEqualTypeOf<number>();
    });
    expectTypeOf(events.has('correction')).toEqualTypeOf<boolean>();
    // @ts-expect-error a game cannot fake a correction (client.corrections would log it)
    events.emit('rollbackCapped', 1, 2);
    // @ts-expect-error nor drop every listener (the client engine's correction log among them)
    events.clear();
  });

  it("client.prediction's progress reads and cannot be written", () => {
    expectTypeOf(prediction.resimulating).toEqualTypeOf<boolean>();
    expectTypeOf(prediction.lastTick).toEqualTypeOf<Tick | undefined>();
    expectTypeOf(prediction.lastSkip).toEqualTypeOf<{ readonly from: Tick; readonly to: Tick } | undefined>();
    // @ts-expect-error only a resimulation sets it
    prediction.resimulating = true;
    // @ts-expect-error the newest simulated tick is the prediction loop's
    prediction.lastTick = 0;
    // @ts-expect-error the skipped range is the per-frame cap's
    prediction.lastSkip = undefined;
    // @ts-expect-error nor can the range be edited in place
    prediction.lastSkip!.from = 0;
  });

  it('roomServer.events can be listened to, not emitted on or cleared', () => {
    const events = roomServer.events;
    expectTypeOf(events).toEqualTypeOf<Listenable<RoomServerEvents>>();
    expectTypeOf(events.on('create', (room) => expectTypeOf(room).toEqualTypeOf<Room>())).toEqualTypeOf<() => void>();
    events.on('dispose', (room, reason) => {
      expectTypeOf(room).toEqualTypeOf<Room>();
      expectTypeOf(reason).toEqualTypeOf<string>();
    });
    expectTypeOf(events.listenerCount).toEqualTypeOf<number>();
    const room = roomServer.rooms[0];
    // @ts-expect-error a game cannot fake a room's disposal
    events.emit('dispose', room!, 'empty');
    // @ts-expect-error nor drop every listener (drain() waits on 'dispose')
    events.clear();
  });
});
