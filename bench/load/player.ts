// Load harness, client side: one headless player speaking the real protocol — a
// NetClient (of the library under test) over createSocketIoClientTransport, a probe
// on that transport (wire.ts), its own FrameLoop, and an InputScript at the keys.
// It connects, joins, and from then on plays whenever `script.active` is set.
// `report()` gathers what the client side of a load run knows.
import { performance } from 'node:perf_hooks';
import type { NetClient } from '../../src/core/client.ts';
import type { ClientTransport } from '../../src/core/transport.ts';
import { FrameLoop, type FrameLoopOptions } from './frame-loop.ts';
import { InputScript, type Game, type GameProtocol } from './game.ts';
import type { Library } from './library.ts';
import { wallNow, type Gap } from './measure.ts';
import { probeClientTransport, trafficDelta, type ClientProbe, type Traffic } from './wire.ts';

/** How long `ready` waits in game for prediction to start. */
const PREDICTION_GRACE_MS = 5000;

export interface PlayerOptions {
  /** http://127.0.0.1:<port> of a netcode server. */
  url: string;
  lib: Library;
  game: Game;
  name: string;
  frames: FrameLoopOptions;
  /** Seed of the input script. */
  seed: number;
}

export interface PlayerReport {
  name: string;
  fps: number;
  networkId: number | undefined;
  /** wallNow() of the mark and of this report. */
  markAt: number;
  at: number;
  frames: number;
  /** Whether prediction ran (an old client whose clock never synced does not predict, nor send inputs). */
  predicting: boolean;
  /** Frame gaps (stalls) since the mark, and the largest excess over the frame asked for (ms). */
  stalls: Gap[];
  maxStallMs: number;
  /** Every snapshot tick this client received (since it connected). */
  snapshotTicks: number[];
  out: Traffic;
  in: Traffic;
  presses: number;
  /** Its predicted player now (the simulation state, not the smoothed view). */
  player: { x: number; y: number; z: number; jumps: number } | null;
  rttMs: number;
  jitterMs: number;
  /** The clock's slack and lead (ticks) now: how early it means inputs to arrive. */
  slackTicks: number;
  leadTicks: number;
  inputDelayTicks: number;
  /** What newer libraries report (null when this one has no such counter). */
  corrections: { total: number; byCause: Record<string, number> } | null;
  skippedTicks: number | null;
  inputReports: { late: number; missing: number } | null;
  unreliableDropped: number | null;
}

export class HeadlessPlayer {
  readonly client: NetClient<GameProtocol>;
  readonly probe: ClientProbe;
  private readonly transport: ClientTransport;
  readonly loop: FrameLoop;
  readonly script: InputScript;
  private joinSent = false;
  private inGameSince: number | undefined;
  private markAt = wallNow();
  private base: { out: Traffic; in: Traffic; frames: number } | undefined;

  constructor(private readonly options: PlayerOptions) {
    const { lib, game } = options;
    const probed = probeClientTransport(lib.socketIo.createSocketIoClientTransport(options.url));
    this.probe = probed.probe;
    this.transport = probed.transport;
    this.client = lib.core.createClient({ protocol: game.protocol, systems: game.systems, transport: probed.transport, now: () => performance.now(), log: () => {} });
    this.loop = new FrameLoop(options.frames);
    this.script = new InputScript(options.seed);
  }

  start(): void {
    this.client.connect();
    this.loop.start((now) => this.frame(now));
  }

  private frame(now: number): void {
    const c = this.client;
    if (c.status === 'connected' && !this.joinSent) {
      this.joinSent = true;
      c.join({ name: this.options.name });
    }
    this.script.apply(now, c.input);
    c.update(now);
  }

  /** Its own player ghost, once the client has it. */
  player() {
    const id = this.client.networkId;
    for (const g of this.client.world.query('player')) if (g.owner === id) return g;
    return undefined;
  }

  /**
   * In game, its player replicated and prediction running — or not running after PREDICTION_GRACE_MS
   * in game (an old library whose clock never syncs: the run goes on and shows it).
   */
  get ready(): boolean {
    if (this.client.status !== 'in-game' || this.player() === undefined) {
      this.inGameSince = undefined;
      return false;
    }
    this.inGameSince ??= performance.now();
    return this.client.prediction?.lastTick !== undefined || performance.now() - this.inGameSince > PREDICTION_GRACE_MS;
  }

  mark(): void {
    this.markAt = wallNow();
    this.base = { out: { ...this.probe.out }, in: { ...this.probe.in }, frames: this.loop.frames };
  }

  report(): PlayerReport {
    const c = this.client as NetClient<GameProtocol> & Partial<Pick<NetClient<GameProtocol>, 'corrections' | 'inputReports'>>;
    const p = this.player();
    const stalls = this.loop.gaps.since(this.markAt);
    return {
      name: this.options.name,
      fps: this.loop.fps,
      networkId: c.networkId,
      markAt: this.markAt,
      at: wallNow(),
      frames: this.loop.frames - (this.base?.frames ?? 0),
      predicting: c.prediction?.lastTick !== undefined,
      stalls,
      maxStallMs: stalls.reduce((m, g) => Math.max(m, g.excessMs), 0),
      snapshotTicks: [...this.probe.snapshotTicks],
      out: trafficDelta(this.probe.out, this.base?.out),
      in: trafficDelta(this.probe.in, this.base?.in),
      presses: this.script.presses,
      player: p ? { ...p.components.position, jumps: p.components.jumps } : null,
      rttMs: c.clock.rttMs,
      jitterMs: c.clock.jitterMs,
      slackTicks: c.clock.slackTicks,
      leadTicks: c.clock.leadTicks,
      inputDelayTicks: c.clock.inputDelayTicks,
      corrections: c.corrections ? { total: c.corrections.total, byCause: { ...c.corrections.byCause } } : null,
      skippedTicks: c.prediction?.stats.skippedTicks ?? null,
      inputReports: c.inputReports ? { late: c.inputReports.late, missing: c.inputReports.missing } : null,
      unreliableDropped: this.transport.stats?.unreliableDropped ?? null,
    };
  }

  stop(): void {
    this.loop.stop();
    this.client.leave('load run over');
  }
}
