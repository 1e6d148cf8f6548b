// Load harness: the game every load scenario plays. One `player` ghost per client,
// owned and predicted by it, moved by its `move` input at SPEED m/s; `jump` is an
// input event the shared system counts into the ghost, so a press lost or doubled
// anywhere on the way shows as a wrong `jumps`. Built with the library under test
// (library.ts) so its protocol hash matches on both sides of a run. InputScript plays
// it: a seeded player holding and changing directions and pressing jump.
import { createRng, type Rng } from '../../src/core/rng.ts';
import type { Core } from './library.ts';

/** Metres per second at full stick. */
export const SPEED = 4;

export function makeGame(core: Core) {
  const { defineProtocol, defineSystems, field, ghost, system } = core;
  const protocol = defineProtocol({
    tickRate: 60,
    snapshotRate: 20,
    ghosts: {
      player: ghost({ position: field.vec3({ quantize: 1000 }), jumps: field.u32() }, { modes: ['predicted', 'interpolated'] }),
    },
    input: { move: field.vec2({ quantize: 100, maxLength: 1 }), jump: field.event() },
    join: { name: field.string(16) },
  });
  const systems = defineSystems(protocol, [
    system.shared('move', (world, ctx) => {
      for (const player of world.query('player')) {
        const input = ctx.input(player);
        const p = player.components.position;
        p.x += input.move.x * SPEED * ctx.dt;
        p.z += input.move.y * SPEED * ctx.dt;
        if (input.jump > 0) player.components.jumps += input.jump;
      }
    }),
  ]);
  return { protocol, systems };
}

export type Game = ReturnType<typeof makeGame>;
export type GameProtocol = Game['protocol'];

/** What InputScript writes: the live input of a client (`client.input`). */
export interface PlayerInput {
  readonly current: { move: { x: number; y: number } };
  press(name: 'jump'): void;
}

/**
 * A player at the keyboard, seeded: holds a direction for 0.3–1.2 s (a quarter of the
 * time nothing), then changes it, and presses jump every 0.4–1.5 s. `apply(now)` before
 * each frame's `update` writes the live input; while inactive the stick is centred.
 */
export class InputScript {
  /** Jump presses made so far. */
  presses = 0;
  active = false;
  private readonly rng: Rng;
  private segmentEnds = -Infinity;
  private nextJumpAt = -Infinity;
  private x = 0;
  private y = 0;

  constructor(seed: number) {
    this.rng = createRng(seed);
  }

  apply(nowMs: number, input: PlayerInput): void {
    const move = input.current.move;
    if (!this.active) {
      move.x = move.y = 0;
      this.segmentEnds = this.nextJumpAt = -Infinity;
      return;
    }
    if (nowMs >= this.segmentEnds) {
      this.segmentEnds = nowMs + this.rng.range(300, 1200);
      const angle = this.rng.range(0, 2 * Math.PI);
      const still = this.rng.chance(0.25);
      this.x = still ? 0 : Math.cos(angle);
      this.y = still ? 0 : Math.sin(angle);
    }
    if (this.nextJumpAt === -Infinity) this.nextJumpAt = nowMs + this.rng.range(400, 1500);
    if (nowMs >= this.nextJumpAt) {
      input.press('jump');
      this.presses++;
      this.nextJumpAt = nowMs + this.rng.range(400, 1500);
    }
    move.x = this.x;
    move.y = this.y;
  }
}
