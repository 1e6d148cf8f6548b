// createPhysics: predicted Rapier physics as one shared system. The same adapter
// serves every peer in the process (server and clients of a test): each netcode
// World gets its own Rapier world. Because rollback restores the ghosts'
// components and the system re-writes the bodies from them, the prediction
// engine needs no physics-specific hook (see docs/physics.md).

import type RAPIER from '@dimforge/rapier3d-compat';
import { NetcodeError } from '../core/errors.ts';
import type { Quat, Vec3 } from '../core/field.ts';
import { isSnapshotTick, type Protocol } from '../core/protocol.ts';
import { system, type SystemDef } from '../core/system.ts';
import type { Tick } from '../core/clock/tick.ts';
import type { World } from '../core/world.ts';
import { newCommands, type Commands, type Entry, type PhysicsGhost } from './body.ts';
import { checkOptions, resolveSpecs, type BodyFields, type PhysicsMode, type PhysicsOptions, type Rapier } from './options.ts';
import { Peer, type PhysicsStats } from './peer.ts';
import { capabilities, type Capabilities } from './raw.ts';

/** Any netcode World (the adapter reads only structure, types and modes). */
type AnyWorld = World<Protocol>;

export interface PhysicsAdapter {
  readonly mode: PhysicsMode;
  readonly rapier: Rapier;
  /** The shared system that steps the physics each tick. Put it after the systems that move characters or apply impulses. */
  system<P extends Protocol = Protocol>(name?: string): SystemDef<P>;
  /** Queue an impulse (N·s) on a dynamic body for this tick's step; impulses in one tick add up. Ignored for ghosts not simulated here. */
  applyImpulse(ghost: PhysicsGhost, impulse: Vec3): void;
  /** Queue a character's desired translation for this tick; the controller slides it along the level. Calls in one tick add up. */
  moveCharacter(ghost: PhysicsGhost, desiredTranslation: Vec3): void;
  /** Queue a kinematic body's translation (and optionally its new rotation) for this tick; it pushes dynamic bodies on the way. */
  moveKinematic(ghost: PhysicsGhost, translation: Vec3, rotation?: Quat): void;
  /** The ghost fields a body type binds (position, rotation, velocities), or undefined when the type has no body. */
  fields(type: string): Readonly<BodyFields> | undefined;
  /** The Rapier world of a peer (replaced at every rebuild in exact mode: do not keep it). */
  world<P extends Protocol>(net: World<P>): RAPIER.World | undefined;
  /** A ghost's rigid body (replaced at every rebuild in exact mode: do not keep it). */
  body(ghost: PhysicsGhost): RAPIER.RigidBody | undefined;
  stats<P extends Protocol>(net: World<P>): Readonly<PhysicsStats> | undefined;
  /** Free a peer's Rapier worlds (the WASM memory is not garbage collected). */
  dispose<P extends Protocol>(net: World<P>): void;
}

function usage(message: string): NetcodeError {
  return new NetcodeError('usage', `react-netcode: ${message}`);
}

/** `op`: the adapter method, named in the error (its message is built only then: a string per call otherwise). */
function finiteVec(v: Vec3, op: string): void {
  if (typeof v !== 'object' || v === null || !Number.isFinite(v.x) || !Number.isFinite(v.y) || !Number.isFinite(v.z)) throw usage(`physics.${op} needs a finite vector { x, y, z }.`);
}

/** Check the body kind and vector, then add `v` to the ghost's queued impulse or move (calls in one tick add up). */
function queueCommand(
  options: PhysicsOptions, commandsOf: (ghost: PhysicsGhost) => Commands, ghost: PhysicsGhost, op: string, kind: string, v: Vec3,
  slot: 'impulse' | 'move', hint: string,
): Commands {
  const body = options.bodies[ghost?.type];
  if (body === undefined) throw usage(`physics.${op} got a ghost of type "${String(ghost?.type)}", which has no body; declare it in createPhysics({ bodies }).`);
  if (body.kind !== kind) throw usage(`physics.${op} needs a ${kind} body; "${ghost.type}" is ${body.kind}${hint}.`);
  finiteVec(v, op);
  const c = commandsOf(ghost);
  const flag = slot === 'impulse' ? 'hasImpulse' : 'hasMove';
  const acc = c[slot];
  if (!c[flag]) acc.x = acc.y = acc.z = 0;
  acc.x += v.x;
  acc.y += v.y;
  acc.z += v.z;
  c[flag] = true;
  return c;
}

/**
 * Build the physics adapter. `RAPIER` is the initialised module:
 * `import RAPIER from '@dimforge/rapier3d-compat'; await RAPIER.init();`.
 */
export function createPhysics(R: Rapier, options: PhysicsOptions): PhysicsAdapter {
  if (typeof R !== 'object' || R === null || typeof R.World !== 'function') throw usage("createPhysics needs the Rapier module: import RAPIER from '@dimforge/rapier3d-compat'; await RAPIER.init(); createPhysics(RAPIER, options).");
  checkOptions(options);
  const mode: PhysicsMode = options.mode ?? 'smoothed';
  const exact = mode === 'exact';
  const snapshotTickOption = options.isSnapshotTick;
  const recordWorlds = options.worldSnapshots !== false;
  const peers = new WeakMap<object, Peer>();
  const entries = new WeakMap<object, Entry>();
  const commands = new WeakMap<object, Commands>();
  let caps: Capabilities | undefined; // probed at the first tick: createPhysics may run before RAPIER.init()

  const commandsOf = (ghost: PhysicsGhost): Commands => {
    let c = commands.get(ghost);
    if (c === undefined) commands.set(ghost, (c = newCommands()));
    return c;
  };

  const peerOf = (net: AnyWorld, dt: number): Peer => {
    let peer = peers.get(net);
    if (peer === undefined) {
      peer = new Peer(R, options, resolveSpecs(net.protocol as Protocol, options), entries, commandsOf, dt, (caps ??= capabilities(R)));
      const protocol = net.protocol as Protocol;
      peer.isSnapshotTick = (t: Tick) => isSnapshotTick(protocol, t);
      peers.set(net, peer);
    }
    return peer;
  };

  const queue = (ghost: PhysicsGhost, op: string, kind: string, v: Vec3, slot: 'impulse' | 'move', hint: string): Commands =>
    queueCommand(options, commandsOf, ghost, op, kind, v, slot, hint);

  return {
    mode,
    rapier: R,
    fields(type: string): Readonly<BodyFields> | undefined {
      const body = options.bodies[type];
      return body ? { position: 'position', rotation: 'rotation', ...body.fields } : undefined;
    },
    system<P extends Protocol = Protocol>(name = 'physics'): SystemDef<P> {
      return system.shared<P>(name, (world, ctx) => {
        const peer = peerOf(world as unknown as AnyWorld, ctx.dt);
        const prev = peer.lastTick;
        const previous = ((ctx.tick as number) - 1) >>> 0;
        // A tick that does not follow the last one stepped is a rollback's first resimulated
        // tick (or a resume): exact mode rebuilds there whatever isSnapshotTick says, smoothed
        // mode restores the world it recorded at the previous tick, if it did.
        // The ticks the server snapshots are a pure function of the tick (protocol.isSnapshotTick).
        const isSnapshot = snapshotTickOption ?? peer.isSnapshotTick;
        const rollback = prev !== undefined && prev !== previous;
        const rebuild = exact && (prev === undefined || rollback || isSnapshot(previous as Tick));
        const quantize = exact ? isSnapshot(ctx.tick) : options.quantizeEveryTick === true;
        // smoothed mode: a client keeps the world of every snapshot tick, the ticks it can roll back to.
        const record = !exact && recordWorlds && !world.isServer && isSnapshot(ctx.tick);
        peer.tick(world as unknown as AnyWorld, ctx.tick, rebuild, quantize, rollback, record);
      });
    },
    applyImpulse(ghost, impulse) {
      queue(ghost, 'applyImpulse', 'dynamic', impulse, 'impulse', '');
    },
    moveCharacter(ghost, desired) {
      queue(ghost, 'moveCharacter', 'character', desired, 'move', ' (use moveKinematic or applyImpulse)');
    },
    moveKinematic(ghost, translation, rotation) {
      const c = queue(ghost, 'moveKinematic', 'kinematic', translation, 'move', '');
      if (rotation !== undefined) {
        c.target.x = rotation.x;
        c.target.y = rotation.y;
        c.target.z = rotation.z;
        c.target.w = rotation.w;
        c.hasTarget = true;
      }
    },
    world: (net) => peers.get(net)?.world,
    body: (ghost) => entries.get(ghost)?.body,
    stats: (net) => peers.get(net)?.stats,
    dispose(net) {
      peers.get(net)?.dispose();
      peers.delete(net);
    },
  };
}
