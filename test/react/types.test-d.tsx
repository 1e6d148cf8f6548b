// Compile-time checks of createNetcode: ghost types, RPC names and payloads, the
// join payload and input fields are typed from the protocol, so typos and wrong
// payloads fail to compile (each @ts-expect-error fails the build if it compiles).

import { describe, expectTypeOf, it } from 'vitest';
import { defineProtocol, field, ghost, rpc, type Ghost, type NetClient, type Vec2 } from '../../src/index.ts';
import { createNetcode, useGhosts as plainUseGhosts, useRpc as plainUseRpc, type Connection, type NetStats } from '../../src/react/index.ts';

const protocol = defineProtocol({
  ghosts: {
    player: ghost({ position: field.vec3({ quantize: 1000 }), hp: field.u8() }),
    ball: ghost({ position: field.vec3({ quantize: 1000 }), kind: field.enum(['red', 'blue']) }, { modes: ['interpolated'] }),
  },
  input: { move: field.vec2({ quantize: 100 }), jump: field.event(), sprint: field.bool(), look: field.vec3() },
  join: { name: field.string(16) },
  rpcs: {
    say: rpc.toServer({ text: field.string(100) }),
    said: rpc.toClient({ from: field.u16(), text: field.string(100) }),
  },
});
type P = typeof protocol;
const nc = createNetcode(protocol);

describe('createNetcode types', () => {
  it('types ghost lists by type and rejects unknown ghost types', () => {
    expectTypeOf(nc.useGhosts('ball')).toEqualTypeOf<readonly Ghost<P, 'ball'>[]>();
    expectTypeOf(nc.useGhosts('ball')[0]!.components.kind).toEqualTypeOf<'red' | 'blue'>();
    expectTypeOf(nc.useLocalGhost('player')).toEqualTypeOf<Ghost<P, 'player'> | undefined>();
    // @ts-expect-error misspelt ghost type
    nc.useGhosts('balll');
    // @ts-expect-error misspelt ghost type
    nc.useLocalGhost('plyer');
    // @ts-expect-error misspelt ghost type
    nc.usePredictedSpawn('bal');
  });

  it('types RPC handlers and senders by direction and payload', () => {
    nc.useRpc('said', (p) => expectTypeOf(p).toEqualTypeOf<{ from: number; text: string }>());
    expectTypeOf(nc.useSendRpc('say')).toEqualTypeOf<(payload: { text: string }) => void>();
    // @ts-expect-error misspelt RPC
    nc.useRpc('typo', () => {});
    // @ts-expect-error a toServer RPC cannot be handled on the client
    nc.useRpc('say', () => {});
    // @ts-expect-error a toClient RPC cannot be sent by the client
    nc.useSendRpc('said');
    const say = nc.useSendRpc('say');
    // @ts-expect-error wrong payload type
    say({ text: 5 });
    // @ts-expect-error missing payload field
    say({});
  });

  it('types the join payload, the connection and the client', () => {
    expectTypeOf(nc.useConnection()).toEqualTypeOf<Connection<P>>();
    nc.useConnection().join({ name: 'ada' });
    // @ts-expect-error wrong join payload
    nc.useConnection().join({ nick: 'ada' });
    expectTypeOf(nc.useNetcode().client).toEqualTypeOf<NetClient<P>>();
    expectTypeOf(nc.useNetStats()).toEqualTypeOf<NetStats>();
    const transport = {} as Parameters<typeof nc.NetcodeProvider>[0]['transport'];
    nc.NetcodeProvider({ transport, join: { name: 'ada' } });
    // @ts-expect-error wrong join payload on the provider
    nc.NetcodeProvider({ transport, join: { name: 1 } });
  });

  it('types input samplers and bindings by field kind', () => {
    nc.useInput((input, tick) => {
      expectTypeOf(input.move).toEqualTypeOf<Vec2>();
      expectTypeOf(tick).toBeNumber();
      // @ts-expect-error no such input field
      input.mvoe = { x: 0, y: 0 };
    });
    nc.useInput([nc.keyboardAxes({ up: 'KeyW', down: 'KeyS', left: 'KeyA', right: 'KeyD' }, { field: 'move' }), nc.pressOnKey('Space', 'jump'), nc.holdKey('ShiftLeft', 'sprint')]);
    // @ts-expect-error keyboardAxes needs a vec2 field (look is a vec3)
    nc.keyboardAxes({ up: 'KeyW', down: 'KeyS', left: 'KeyA', right: 'KeyD' }, { field: 'look' });
    // @ts-expect-error presses go to numeric (event) fields
    nc.pressOnKey('Space', 'sprint');
    // @ts-expect-error holdKey needs a boolean field
    nc.holdKey('ShiftLeft', 'jump');
  });

  it('plain hooks accept any name (checked at render instead)', () => {
    expectTypeOf(plainUseGhosts('anything')).toExtend<readonly Ghost[]>();
    plainUseRpc('anything', (p) => expectTypeOf(p).toEqualTypeOf<Readonly<Record<string, unknown>>>());
  });
});
