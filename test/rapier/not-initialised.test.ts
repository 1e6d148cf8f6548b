// Rapier's WASM must be initialised before the first physics tick. Without it Rapier's own glue
// throws a TypeError that names none of this (reading 'rawintegrationparameters_new' of undefined);
// the adapter's first tick says what to do instead. This file never calls RAPIER.init() (vitest
// gives each test file its own modules).
import { describe, expect, it } from 'vitest';
import RAPIER from '@dimforge/rapier3d-compat';
import { defineProtocol, defineSystems, field, ghost, type InputValues } from '../../src/index.ts';
import { EngineWorld, SystemRunner } from '../../src/internals.ts';
import { createPhysics } from '../../src/rapier/index.ts';

const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: { box: ghost({ position: field.vec3({ quantize: 1000 }), rotation: field.quat(), linvel: field.vec3(), angvel: field.vec3() }) },
  input: {},
});

describe('physics before initRapier', () => {
  it('the first tick throws an error naming initRapier, not a TypeError from inside Rapier', () => {
    const physics = createPhysics(RAPIER, { bodies: { box: { kind: 'dynamic', collider: { cuboid: [0.25, 0.25, 0.25] } } } });
    const world = new EngineWorld(protocol, { isServer: true, localNetworkId: 0 });
    world.add('box', 1, 0, 0, { position: { x: 0, y: 1, z: 0 } });
    const input = protocol.input.defaults() as InputValues<typeof protocol>;
    const runner = new SystemRunner(world, defineSystems(protocol, [physics.system()]), { seed: 1, input: () => input, allocateId: () => 0 });
    let thrown: unknown;
    try {
      runner.run('server', 1);
    } catch (error) {
      thrown = error;
    }
    // The system's error (contained per tick like any other), its message the adapter's: what to do, not "fix the system".
    const error = thrown as Error & { cause?: Error & { code?: string; cause?: unknown } };
    expect(error.message).toBe(
      'react-netcode: system "physics" threw at tick 1: Rapier is not initialised: `await initRapier(RAPIER)` (react-netcode/rapier) ' +
        "before the first tick — at start-up on a server or a Node client, as NetcodeProvider's `init` prop in a page. " +
        '(error.cause holds what it threw, with the stack).',
    );
    expect(error.cause?.code).toBe('usage');
    expect(error.cause?.cause).toBeInstanceOf(TypeError); // Rapier's own error, kept for the stack
  });
});
