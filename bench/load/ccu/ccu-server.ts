// CCU bench, server process side: server mode `ccu` of server-process.ts. Starts "a server with
// R rooms of P players" (rooms.ts) and measures a window from `mark` to `report`: the process's
// CPU time (process.cpuUsage(), user + system, every thread of the process: what the core it is
// pinned to spends on it), wall time, per-room tick samples, and TCP bytes of every socket;
// with `profile`, a CPU profile of the window (node:inspector) written to that path.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { CcuFigures, CcuServerConfig, ServerReport } from '../ipc.ts';
import { wallNow } from '../measure.ts';
import { SocketCounter, type RunningServer } from '../server-kit.ts';
import { startRooms } from './rooms.ts';

export async function startCcuServer(config: CcuServerConfig): Promise<RunningServer> {
  const rooms = await startRooms(config.system, config.rooms, config.players);
  const counters = rooms.http.map((h) => new SocketCounter(h));
  let cpu = process.cpuUsage();
  let at = performance.now();
  let markAt = wallNow();
  let core = coreTimes(config.cpu);
  const profiler = config.profile === undefined ? undefined : new Session();
  profiler?.connect();
  let saving: Promise<void> = Promise.resolve();
  return {
    port: 0,
    endpoints: rooms.endpoints,
    mark() {
      if (profiler) void profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'));
      rooms.mark();
      for (const c of counters) c.mark();
      markAt = wallNow();
      at = performance.now();
      cpu = process.cpuUsage();
      core = coreTimes(config.cpu);
    },
    quiesce() {},
    report(): ServerReport {
      const used = process.cpuUsage(cpu);
      const coreNow = coreTimes(config.cpu);
      const coreBusyPct = core && coreNow ? ((coreNow.busy - core.busy) / Math.max(1, coreNow.total - core.total)) * 100 : null;
      const wallMs = performance.now() - at;
      const wire = counters.reduce((w, c) => {
        const s = c.sinceMark();
        return { bytesRead: w.bytesRead + s.bytesRead, bytesWritten: w.bytesWritten + s.bytesWritten };
      }, { bytesRead: 0, bytesWritten: 0 });
      if (profiler) saving = saveProfile(profiler, config.profile!);
      const ccu: CcuFigures = { system: config.system, cpuMicros: used.user + used.system, wallMs, rooms: rooms.samples(), rssBytes: process.memoryUsage().rss, coreBusyPct };
      return { mode: 'ccu', markAt, at: wallNow(), tickRate: 60, stalls: [], maxStallMs: 0, wire, warnings: [], connections: [], raw: [], ccu };
    },
    async stop() {
      await saving;
      profiler?.disconnect();
      await rooms.stop();
    },
  };
}

/** Busy and total time of one core so far (ms, os.cpus()), or null when not pinned or not reported. */
function coreTimes(index: number | undefined): { busy: number; total: number } | null {
  const t = index === undefined ? undefined : cpus()[index]?.times;
  if (t === undefined) return null;
  const busy = t.user + t.nice + t.sys + t.irq;
  return { busy, total: busy + t.idle };
}

/** Stop the window's CPU profile and write it (open it in Chrome DevTools' Performance panel or speedscope). */
async function saveProfile(session: Session, path: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(path, JSON.stringify(profile));
}
