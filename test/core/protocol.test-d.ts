import { describe, expectTypeOf, it } from 'vitest';
import { defineProtocol, field, ghost, rpc, type InputValues, type JoinPayload, type NetClient, type NetServer, type RpcNames, type RpcPayload, type Vec2, type Vec3 } from '../../src/index.ts';

const protocol = defineProtocol({
  ghosts: { player: ghost({ position: field.vec3({ quantize: 1000 }), state: field.enum(['idle', 'run']) }) },
  input: { move: field.vec2({ quantize: 127 }), fire: field.event() },
  join: { name: field.string(24) },
  rpcs: {
    say: rpc.toServer({ text: field.string(100) }),
    said: rpc.toClient({ from: field.u16(), text: field.string(100) }),
  },
});
type P = typeof protocol;

describe('protocol types', () => {
  it('types RPC names by direction and payloads from their schema', () => {
    expectTypeOf<RpcNames<P, 'toServer'>>().toEqualTypeOf<'say'>();
    expectTypeOf<RpcNames<P, 'toClient'>>().toEqualTypeOf<'said'>();
    expectTypeOf<RpcPayload<P, 'said'>>().toEqualTypeOf<{ from: number; text: string }>();
  });

  it('types the join payload and the input', () => {
    expectTypeOf<JoinPayload<P>>().toEqualTypeOf<{ name: string }>();
    expectTypeOf<InputValues<P>>().toEqualTypeOf<{ move: Vec2; fire: number }>();
    expectTypeOf(protocol.ghosts.player.fields.position).toHaveProperty('quantize').toBeFunction();
    expectTypeOf<ReturnType<typeof protocol.ghosts.player.fields.position.defaultValue>>().toEqualTypeOf<Vec3>();
  });

  it('checks RPC calls on server and client', () => {
    const server = {} as NetServer<P>;
    const client = {} as NetClient<P>;
    client.send('say', { text: 'hi' });
    // @ts-expect-error misspelt RPC
    client.send('sya', { text: 'hi' });
    // @ts-expect-error a toClient RPC cannot be sent by a client
    client.send('said', { from: 1, text: 'hi' });
    // @ts-expect-error wrong payload type
    client.send('say', { text: 5 });
    client.onRpc('said', (p) => expectTypeOf(p.from).toBeNumber());
    server.onRpc('say', (_conn, p) => expectTypeOf(p.text).toBeString());
    // @ts-expect-error the server does not receive toClient RPCs
    server.onRpc('said', () => {});
    server.broadcast('said', { from: 1, text: 'x' });
    // @ts-expect-error missing field
    server.broadcast('said', { from: 1 });
    client.join({ name: 'ann' });
    // @ts-expect-error join payload is typed
    client.join({ nick: 'ann' });
  });

  it('types client.view from the ghost: position is a Vec3, an unknown field does not compile', () => {
    const client = {} as NetClient<P>;
    const player = [...client.world.query('player')][0]!;
    expectTypeOf(client.view(player).position).toEqualTypeOf<Vec3>();
    expectTypeOf(client.view(player, false).state).toEqualTypeOf<'idle' | 'run'>();
    // @ts-expect-error no such field
    void client.view(player).velocity;
    const any = client.world.get(1)!;
    expectTypeOf(client.view(any).position).toEqualTypeOf<Vec3>();
  });
});
