// Load harness, server process side: react-netcode's real server as a game would run
// it — createServer over createSocketIoServerTransport on 127.0.0.1, `start()` on the
// library's realTimeScheduler — plus the measurements a load run reports: per
// connection the input counters and arrival histogram, every tick that ran without
// the connection's input (with its time), the snapshot ticks written to it, its
// traffic and its player; for the process the loop's stalls and TCP bytes.
import type { Connection } from '../../src/core/connection.ts';
import type { ServerInputStats } from '../../src/core/input/index.ts';
import { makeGame } from './game.ts';
import type { ConnectionReport, MissingTick, NetcodeServerConfig, ServerReport } from './ipc.ts';
import { loadLibrary } from './library.ts';
import { GapRecorder, histogramDelta, wallNow } from './measure.ts';
import { collectWarnings, SocketCounter, timedScheduler, type RunningServer } from './server-kit.ts';
import { probeServerTransport, trafficDelta, type PeerProbe, type Traffic } from './wire.ts';

/** What a connection looked like at the mark. */
interface Baseline {
  inputs: ServerInputStats | undefined;
  ticks: { ticks: number; beforeAnyInput: number } | undefined;
  arrivals: number[] | undefined;
  out: Traffic | undefined;
  in: Traffic | undefined;
}

export async function startNetcodeServer(config: NetcodeServerConfig): Promise<RunningServer> {
  const lib = await loadLibrary(config.root);
  const { protocol, systems } = makeGame(lib.core);
  const io = lib.socketIo.createSocketIoServerTransport({ port: 0, host: '127.0.0.1' });
  const probed = probeServerTransport(io);
  const loopGaps = new GapRecorder(config.stallFloorMs ?? 8);
  const warnings = collectWarnings();
  const sockets = new SocketCounter(io.io.httpServer);
  const server = lib.core.createServer({
    protocol,
    systems,
    transport: probed.transport,
    scheduler: timedScheduler(lib.core.realTimeScheduler, loopGaps),
    log: warnings.log,
  });
  type Conn = Connection<{ name: string }>;
  server.events.on('join', (c: Conn) => server.spawn('player', {}, { owner: c.networkId }));

  // Every tick: which in-game connections' counters of ticks run without input grew; ticks per connection.
  const missing = new Map<number, MissingTick[]>();
  const lastMissing = new Map<number, number>();
  const ticks = new Map<number, { ticks: number; beforeAnyInput: number }>();
  server.events.on('tick', (tick: number) => {
    for (const c of server.connections.values()) {
      if (!c.inGame) continue;
      let t = ticks.get(c.networkId);
      if (t === undefined) ticks.set(c.networkId, (t = { ticks: 0, beforeAnyInput: 0 }));
      t.ticks++;
      if ((server.inputStats(c)?.received ?? 0) === 0) t.beforeAnyInput++;
      const now = server.inputStats(c)?.missing ?? 0;
      const before = lastMissing.get(c.networkId) ?? 0;
      if (now === before) continue;
      lastMissing.set(c.networkId, now);
      let list = missing.get(c.networkId);
      if (list === undefined) missing.set(c.networkId, (list = []));
      for (let i = before; i < now && list.length < 10_000; i++) list.push({ tick, at: wallNow() });
    }
  });

  const { port } = await io.ready();
  server.start();

  let markAt = wallNow();
  const baselines = new Map<number, Baseline>();
  const probeOf = (c: Conn): PeerProbe | undefined => probed.peers.get(c.peer);
  const playerOf = (c: Conn): ConnectionReport['player'] => {
    for (const g of server.world.query('player')) {
      if (g.owner === c.networkId) return { ...g.components.position, jumps: g.components.jumps };
    }
    return null;
  };

  return {
    port,
    mark() {
      markAt = wallNow();
      sockets.mark();
      baselines.clear();
      for (const c of server.connections.values()) {
        const inputs = server.inputStats(c);
        const arrivals = server.inputArrivals?.(c);
        const p = probeOf(c);
        const t = ticks.get(c.networkId);
        baselines.set(c.networkId, { inputs: inputs && { ...inputs }, ticks: t && { ...t }, arrivals: arrivals && Array.from(arrivals), out: p && { ...p.out }, in: p && { ...p.in } });
      }
    },
    quiesce() {},
    report(): ServerReport {
      const connections: ConnectionReport[] = [];
      for (const c of server.connections.values()) {
        if (!c.inGame) continue;
        const base = baselines.get(c.networkId);
        const inputs: Record<string, number> = {};
        for (const [k, v] of Object.entries(server.inputStats(c) ?? {})) inputs[k] = v - ((base?.inputs as Record<string, number> | undefined)?.[k] ?? 0);
        const arrivals = server.inputArrivals?.(c);
        const p = probeOf(c);
        connections.push({
          networkId: c.networkId,
          peer: c.peer,
          inputs,
          arrivals: arrivals ? histogramDelta(arrivals, base?.arrivals) : null,
          missingTicks: (missing.get(c.networkId) ?? []).filter((m) => m.at >= markAt),
          ticks: (ticks.get(c.networkId)?.ticks ?? 0) - (base?.ticks?.ticks ?? 0),
          ticksBeforeAnyInput: (ticks.get(c.networkId)?.beforeAnyInput ?? 0) - (base?.ticks?.beforeAnyInput ?? 0),
          snapshotTicks: (p?.snapshots ?? []).filter((s) => s.at >= markAt).map((s) => s.tick),
          out: trafficDelta(p?.out ?? { writes: 0, messages: 0, bytes: 0 }, base?.out),
          in: trafficDelta(p?.in ?? { writes: 0, messages: 0, bytes: 0 }, base?.in),
          unreliableDropped: io.peerStats?.(c.peer)?.unreliableDropped ?? null,
          player: playerOf(c),
        });
      }
      const stalls = loopGaps.since(markAt);
      return {
        mode: 'netcode',
        markAt,
        at: wallNow(),
        tickRate: protocol.tickRate,
        stalls,
        maxStallMs: stalls.reduce((m, g) => Math.max(m, g.excessMs), 0),
        wire: sockets.sinceMark(),
        warnings: warnings.since(markAt),
        connections,
        raw: [],
      };
    },
    async stop() {
      server.close('load run over');
      await io.io.close();
    },
  };
}
