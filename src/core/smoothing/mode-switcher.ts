// Prediction switching on the client: a ghost moves between predicted and
// interpolated at runtime (by hand, or by distance to a point with radius +
// margin hysteresis), and a ModeTransition blends what is shown so nothing jumps.
// Runs once per client frame, after prediction and interpolation.

import { ghostSwitchedMode, type ClientGhosts } from '../client-ghosts.ts';
import type { Field, Vec3 } from '../field.ts';
import type { Protocol } from '../protocol.ts';
import type { Schema, Values } from '../schema.ts';
import { desiredMode, ModeTransition, type PredictionMode } from './index.ts';
import type { Ghost } from '../world.ts';
import { NetcodeError } from '../errors.ts';

export interface PredictionSwitchingOptions {
  /** Ghosts closer than this to `center()` are predicted … */
  radius: number;
  /** … and go back to interpolated beyond radius + margin (hysteresis). */
  margin: number;
  /** Blend duration when a ghost switches (default 250 ms). */
  transitionMs?: number;
  /** The point to measure from, usually the local player's position; undefined pauses switching. */
  center: () => Vec3 | undefined;
  /** The vec3 field holding a ghost's position (default 'position'). */
  positionField?: string;
  /**
   * Only these ghost types switch by distance (default: every type whose `modes` has both
   * 'predicted' and 'interpolated'). E.g. `['ball']` predicts nearby balls but leaves remote
   * players interpolated. Every name must be a ghost type of the protocol that supports both modes.
   */
  types?: readonly string[] | undefined;
}

interface Blend {
  readonly ghost: Ghost;
  readonly transition: ModeTransition<Schema>;
  readonly out: Values<Schema>;
  active: boolean;
}

export class ModeSwitcher<P extends Protocol> {
  private readonly blends = new Map<number, Blend>();
  private options: PredictionSwitchingOptions | undefined;
  /** options.types as a set (undefined: every type with both modes). */
  private types: Set<string> | undefined;
  /** Switches made so far (both directions). */
  switches = 0;

  constructor(
    private readonly ghosts: ClientGhosts<P>,
    /** What a ghost shows right now (before any blend). */
    private readonly shown: (ghost: Ghost) => Values<Schema>,
    /** Called when a ghost became predicted: the prediction loop must catch it up (ClientPrediction.invalidate). */
    private readonly catchUp: () => void,
  ) {}

  /** A ghost that just became predicted starts from its newest confirmed state; the next advance catches it up. */
  private onPredicted(ghost: Ghost): void {
    const rec = this.ghosts.record(ghost.id);
    const latest = rec?.latest;
    if (rec && latest) rec.codec.copy(latest, ghost.components as Values<Schema>, true);
    this.catchUp();
  }

  /** Turn distance-based switching on (or off with undefined). */
  configure(options: PredictionSwitchingOptions | undefined): void {
    if (options?.types !== undefined) {
      for (const name of options.types) {
        const entry = this.ghosts.world.protocol.ghostByName.get(name);
        if (!entry) {
          const known = [...this.ghosts.world.protocol.ghostByName.keys()].join(', ');
          throw new NetcodeError('usage', `react-netcode: setPredictionSwitching({ types }) names '${name}', which is not a ghost type of this protocol (ghost types: ${known}).`);
        }
        if (!entry.type.modes.includes('predicted') || !entry.type.modes.includes('interpolated')) {
          throw new NetcodeError('usage', `react-netcode: setPredictionSwitching({ types }) names '${name}', whose modes are [${entry.type.modes.join(', ')}]; a switched type needs ghost(…, { modes: ['predicted', 'interpolated'] }).`);
        }
      }
    }
    this.options = options;
    this.types = options?.types === undefined ? undefined : new Set(options.types);
  }

  /** Switch one ghost, blending from what it shows now. No-op if its type does not support `mode`, or it already is. */
  setMode(ghost: Ghost, mode: PredictionMode, nowMs: number): boolean {
    if (ghost.mode === mode || ghost.mode === 'server') return false;
    const entry = this.ghosts.world.protocol.ghostByName.get(ghost.type);
    if (!entry || !entry.type.modes.includes(mode)) return false;
    const rec = this.ghosts.record(ghost.id);
    if (!rec) return false;
    let blend = this.blends.get(ghost.handle);
    if (!blend) {
      const options = this.options?.transitionMs === undefined ? {} : { transitionMs: this.options.transitionMs };
      blend = { ghost, transition: new ModeTransition(rec.codec, options), out: rec.codec.defaults(), active: false };
      this.blends.set(ghost.handle, blend);
    }
    // Freeze what is on screen now; the blend runs from it to the new mode's values.
    blend.transition.start(blend.active ? blend.out : this.shown(ghost), nowMs);
    blend.active = true;
    ghost.mode = mode;
    if (mode === 'predicted') this.onPredicted(ghost);
    this.switches++;
    ghostSwitchedMode(this.ghosts, ghost, mode);
    return true;
  }

  /** Per frame: apply distance-based switching, then advance blends. */
  update(nowMs: number): void {
    const options = this.options;
    const center = options?.center();
    if (options && center) {
      const key = options.positionField ?? 'position';
      for (const ghost of this.ghosts.world.all()) {
        if (ghost.isLocal) continue;
        if (this.types !== undefined && !this.types.has(ghost.type)) continue;
        const modes = this.ghosts.world.protocol.ghostByName.get(ghost.type)?.type.modes;
        if (!modes || modes.length < 2) continue;
        const field = (this.ghosts.world.protocol.ghostByName.get(ghost.type)!.codec.schema as Record<string, Field<unknown>>)[key];
        if (field?.kind !== 'vec3') continue;
        const p = this.shown(ghost)[key] as Vec3;
        const d = Math.hypot(p.x - center.x, p.y - center.y, p.z - center.z);
        const want = desiredMode(ghost.mode as PredictionMode, d, options);
        if (want !== ghost.mode) this.setMode(ghost, want, nowMs);
      }
    }
    if (this.blends.size === 0) return; // no iterator per frame when nothing is switching
    for (const [handle, blend] of this.blends) {
      const ghost = blend.ghost;
      if (!ghost.alive) {
        this.blends.delete(handle);
        continue;
      }
      if (blend.active) blend.active = blend.transition.apply(this.shown(ghost), nowMs, blend.out);
    }
  }

  /** The blended values while a ghost is switching, else undefined. */
  view(ghost: Ghost): Values<Schema> | undefined {
    const blend = this.blends.get(ghost.handle);
    return blend?.active ? blend.out : undefined;
  }

  clear(): void {
    this.blends.clear();
  }
}
