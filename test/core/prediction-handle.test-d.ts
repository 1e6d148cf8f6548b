import { describe, expectTypeOf, it } from 'vitest';
import { createClient, defineProtocol, field, ghost, LoopbackNetwork, type ClientOptions, type ClientPrediction, type PredictingClient } from '../../src/index.ts';

const protocol = defineProtocol({ ghosts: { cube: ghost({ x: field.f32() }) } });
type P = typeof protocol;
const transport = new LoopbackNetwork().createClient();

describe('the prediction handle', () => {
  it('is never undefined on a client created with prediction on (the default, or options)', () => {
    const client = createClient({ protocol, transport });
    expectTypeOf(client).toMatchTypeOf<PredictingClient<P>>();
    expectTypeOf(client.prediction).toEqualTypeOf<ClientPrediction<P>>();
    expectTypeOf(createClient({ protocol, transport, prediction: { rollback: 'always' } }).prediction).toEqualTypeOf<ClientPrediction<P>>();
  });

  it('is undefined with prediction: false, and possibly undefined when the option is only known at run time', () => {
    expectTypeOf(createClient({ protocol, transport, prediction: false }).prediction).toEqualTypeOf<undefined>();
    const options = {} as ClientOptions<P>;
    const client = createClient(options);
    expectTypeOf(client.prediction).toEqualTypeOf<ClientPrediction<P> | undefined>();
    expectTypeOf(client.requirePrediction()).toEqualTypeOf<ClientPrediction<P>>();
  });
});
