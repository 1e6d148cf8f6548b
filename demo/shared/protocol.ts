// The demo's protocol, shared by its server and clients: players join with a name
// (and are put in the smaller team), walk (WASD), jump (Space), throw grenades (right
// mouse / F), spawn balls (B) and kick them (E) into the other team's goal; `match` is
// the score, the phase and its clock. Players are Rapier characters, predicted for their owner and
// interpolated for everyone else; grenades are dynamic bodies and predicted spawns
// matched by spawnId; balls are dynamic bodies, predicted near the local player and
// interpolated elsewhere (prediction switching); `config` is the one live-tuned
// grenade configuration, read by the shared systems on every peer.

import { defineProtocol, field, ghost, rpc, spawnIdClassifier } from '../../src/index.ts';

/** Config values travel as f32 quantized to 0.01 (the server rounds the same way, so both sides hold equal numbers). */
const tunable = () => field.f32({ quantize: 100 });

export const protocol = defineProtocol({
  tickRate: 60,
  snapshotRate: 20,
  ghosts: {
    player: ghost(
      {
        /** Centre of the character's capsule (0.9 m above the feet). */
        position: field.vec3({ quantize: 1000 }),
        /** Vertical speed (m/s), integrated by the move system; the controller stops it on the ground. */
        vy: field.f32({ quantize: 1000 }),
        /** The character controller's ground detection after the last move. */
        grounded: field.bool(),
        /** Facing angle (radians, 0 = +z), the throw direction. */
        facing: field.f32({ quantize: 1000 }),
        colour: field.u8(),
        name: field.string(16),
        /** TEAM_RED (1) or TEAM_BLUE (2), chosen at join (shared/match.ts). */
        team: field.u8(),
        /** Horizontal knock-back velocity (m/s) from blasts, decaying; added to the walk by the move system. */
        kx: field.f32({ quantize: 1000 }),
        kz: field.f32({ quantize: 1000 }),
      },
      { modes: ['predicted', 'interpolated'] },
    ),
    grenade: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        linvel: field.vec3({ quantize: 1000 }),
        spawnId: field.u32(),
        /** Seconds left; server-only (Infinity in client prediction: clients never explode grenades). */
        fuse: field.f32({ replicated: false }),
      },
      { modes: ['predicted', 'interpolated'], classify: spawnIdClassifier() },
    ),
    /**
     * Dynamic balls: kicked, pushed by players and blasts. A predicted ball is restored from the
     * quantized snapshot while the server goes on from its full-precision state, so its spin drifts
     * from the server's by more than a quantization step within a few ticks: the tolerances below
     * keep that drift from rolling the client back at every snapshot. A sphere's rotation does not
     * change its motion (6° of drift is not seen on a spinning ball); the velocities' tolerances
     * are 2 cm/s and 0.05 rad/s (2.5 cm/s at the surface). The position keeps its 1 mm step.
     */
    ball: ghost(
      {
        position: field.vec3({ quantize: 1000 }),
        rotation: field.quat({ tolerance: 0.1 }),
        linvel: field.vec3({ quantize: 1000, tolerance: 0.02 }),
        angvel: field.vec3({ quantize: 1000, tolerance: 0.05 }),
      },
      { modes: ['predicted', 'interpolated'] },
    ),
    /**
     * One per game: the kickball match (shared/match.ts), changed by the server alone. Interpolated:
     * no client system simulates it, so a predicted copy would differ from every snapshot (the clock
     * runs) and roll the client back at each one, 20 times a second.
     */
    match: ghost(
      {
        /** PHASE_KICKOFF, PHASE_PLAYING or PHASE_RESULTS. */
        phase: field.u8(),
        /** Seconds left in the phase. */
        clock: field.f32({ quantize: 100 }),
        red: field.u8(),
        blue: field.u8(),
        /** Goals scored since the server started (a client sees a new goal as a change) and the team of the last one. */
        goals: field.u16(),
        lastGoalTeam: field.u8(),
        /** Matches played since the server started. */
        round: field.u16(),
      },
      { modes: ['interpolated'] },
    ),
    /** One per game: the grenade configuration (live tuning). Predicted on clients, so a new value reaches their prediction through the usual rollback. */
    config: ghost(
      {
        /** Throw speed (m/s). */
        grenadeSpeed: tunable(),
        /** Seconds from the throw to the explosion. */
        fuse: tunable(),
        /** Blast radius, compared with the squared distance (m²): 40 ≈ 6.3 m. */
        blastRadiusSq: tunable(),
        /** Velocity change (m/s) at the centre of the blast, falling to 0 at the edge. */
        blastPower: tunable(),
        /** Cap on the upward part of the blast's velocity change (m/s). */
        verticalClamp: tunable(),
        /** A grenade caught in a blast has its fuse cut to this many seconds if longer (chain reaction). */
        chainFuse: tunable(),
      },
      { modes: ['predicted'] },
    ),
  },
  input: {
    move: field.vec2({ quantize: 100, maxLength: 1 }),
    fire: field.event(),
    jump: field.event(),
    kick: field.event(),
    spawnBall: field.event(),
  },
  join: { name: field.string(24) },
  rpcs: {
    say: rpc.toServer({ text: field.string(200) }),
    said: rpc.toClient({ from: field.u16(), name: field.string(24), text: field.string(200) }),
    welcome: rpc.toClient({ players: field.u16() }),
    /** From the results screen: start the next match now. */
    rematch: rpc.toServer({}),
    /** Move to the other team (its kickoff spot at the next kickoff). */
    switchTeam: rpc.toServer({}),
    /** Live tuning: the whole grenade config; the server clamps every value and applies it to the `config` ghost. */
    tune: rpc.toServer({
      grenadeSpeed: field.f32(),
      fuse: field.f32(),
      blastRadiusSq: field.f32(),
      blastPower: field.f32(),
      verticalClamp: field.f32(),
      chainFuse: field.f32(),
    }),
  },
});

export type DemoProtocol = typeof protocol;
