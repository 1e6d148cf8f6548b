// WebRTC beside socket.io, on the real path: the load game's server (bench/webrtc/
// game-server.ts) in its own process, headless clients at 60 frames/s in another
// (game-clients.ts), both inside a network namespace this bench creates (10.213.0.1; WebRTC
// does not connect over loopback alone). Per case, the same load over the WebRTC data
// channel (node-datachannel on the server) and over socket.io, without loss and with 5 %
// loss each way — for WebRTC dropped by the conditioner (unreliable messages lost,
// reliable ones one RTO late), for socket.io modelled the way TCP suffers it: every
// message a segment, a lost one one RTO late (max(200 ms, SRTT + 4·RTTVAR)) and everything
// after it waiting behind it (bench/webrtc/tcp-loss.ts). Skipped (an empty BENCH line with
// the reason) where no namespace can be made. Prints a table, then one BENCH line.
import { runGame, type GameRun } from './webrtc/harness.ts';
import { createNetns } from './webrtc/netns.ts';
import { percentile, round } from './load/measure.ts';

const CLIENTS = (process.env.RNC_WEBRTC_BENCH_CLIENTS ?? '1,4,8').split(',').map(Number);
const LOSSES = [0, 0.05];
const SECONDS = Number(process.env.RNC_WEBRTC_BENCH_SECONDS ?? 6);
const MODES = ['webrtc', 'socket.io'] as const;

type Result = { case: string; system: string } & Record<string, number | string | null>;

function row(name: string, system: string, clients: number, run: GameRun): Result {
  const delays = run.clients.flatMap((c) => c.snapshotDelays).sort((a, b) => a - b);
  const rtts = run.clients.flatMap((c) => c.rtts).sort((a, b) => a - b);
  const expected = clients * 20 * (SECONDS - 1.5);
  const received = run.clients.reduce((a, c) => a + c.snapshots, 0);
  for (const c of run.clients) if (c.fallbackReason !== undefined && system.includes('webrtc')) console.log(`${name}: a client fell back: ${c.fallbackReason}`);
  if (system.includes('webrtc') && run.server.logs.length > 0) console.log(`${name}: server: ${run.server.logs.join(' | ')}`);
  return {
    case: name,
    system,
    path: [...new Set(run.clients.map((c) => c.path))].join('+'),
    clientsOnWebRtc: run.clients.filter((c) => c.path === 'webrtc').length,
    serverCpuPctPerClient: round((100 * run.server.cpuMs) / run.server.wallMs / clients, 2),
    rttMsP50: round(percentile(rtts, 0.5), 1),
    rttMsP99: round(percentile(rtts, 0.99), 1),
    snapshotDelayMsP50: round(percentile(delays, 0.5), 1),
    snapshotDelayMsP99: round(percentile(delays, 0.99), 1),
    snapshotDelayMsMax: round(delays.at(-1) ?? Number.NaN, 1),
    snapshotsReceivedPct: round((100 * received) / expected, 1),
    pressesLost: run.clients.reduce((a, c) => a + Math.max(0, c.presses - c.jumpsServer), 0),
  };
}

export async function run(): Promise<void> {
  const started = performance.now();
  const netns = createNetns();
  if ('skip' in netns) {
    console.log(`webrtc bench skipped: ${netns.skip}`);
    console.log(`BENCH ${JSON.stringify({ bench: 'webrtc', results: [], skipped: netns.skip })}`);
    return;
  }
  const results: Result[] = [];
  try {
    for (const clients of CLIENTS) {
      for (const loss of LOSSES) {
        for (const mode of MODES) {
          const name = `${clients}x60 loss ${loss * 100}%`;
          const game = await runGame(netns, { mode, loss, seed: 11 }, { mode, clients, fps: 60, seconds: SECONDS });
          results.push(row(name, mode === 'webrtc' ? 'react-netcode webrtc' : 'react-netcode socket.io', clients, game));
        }
      }
    }
  } finally {
    netns.remove();
  }
  console.table(results.map(({ case: name, system, ...metrics }) => ({ case: name, system, ...metrics })));
  console.log(`Each case: ${SECONDS} s of play, measured after 1.5 s; server and clients in their own processes inside a network namespace (veth, 10.213.0.1/2).`);
  console.log('serverCpuPctPerClient = the server process\'s CPU (user + system) over the measured window, % of one core, divided by clients.');
  console.log('rtt = Ping → Pong per sample (includes up to one server tick of waiting); snapshot delay = arrival minus the tick\'s place on the 60 Hz schedule, less the smallest such value in the case.');
  console.log('5 % loss each way: WebRTC — unreliable messages dropped; socket.io — TCP model, a lost segment arrives one RTO (200 ms) late and holds back everything after it.');
  console.log(`took ${round((performance.now() - started) / 1000, 1)} s`);
  console.log(`BENCH ${JSON.stringify({ bench: 'webrtc', results })}`);
}
