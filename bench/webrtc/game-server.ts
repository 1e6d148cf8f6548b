// A game server for the WebRTC tests and bench, run in its own process (inside a network
// namespace for WebRTC): the load game (bench/load/game.ts) over socket.io, wrapped in the
// WebRTC transport when mode is 'webrtc'; loss is injected on the server side, per peer:
// WebRTC: the conditioner (unreliable messages dropped, reliable ones one RTO late);
// socket.io: the TCP model (tcp-loss.ts). Config: env RNC_GAME (JSON). Speaks JSON lines:
// stdout {ready: port}, then on stdin 'mark' / 'report' / 'exit'.
import { createInterface } from 'node:readline';
import * as core from '../../src/index.ts';
import { createSocketIoServerTransport } from '../../src/socket-io/index.ts';
import { createWebRtcServerTransport } from '../../src/webrtc/index.ts';
import { makeGame } from '../load/game.ts';
import { tcpLoss } from './tcp-loss.ts';

export interface GameServerConfig {
  host: string;
  mode: 'webrtc' | 'socket.io';
  loss: number;
  seed: number;
  publicAddress?: string;
}

const config = JSON.parse(process.env.RNC_GAME ?? '{}') as GameServerConfig;
const { protocol, systems } = makeGame(core);
const io = createSocketIoServerTransport({ host: config.host, port: 0 });
const logs: string[] = [];
const log: core.Logger = (level, message) => level !== 'debug' && logs.push(`${level}: ${message}`);
let transport: core.ServerTransport = io;
if (config.mode === 'webrtc') {
  // every client of a run comes from one address: the per-address limit is raised for the bench
  transport = createWebRtcServerTransport(io, { log, limits: { perSecond: 100, perMinutePerAddress: 1000 }, ...(config.publicAddress ? { publicAddress: config.publicAddress } : {}) });
  if (config.loss > 0) transport = core.conditionServer(transport, { seed: config.seed, up: { loss: config.loss }, down: { loss: config.loss } }, core.realTimeScheduler);
} else if (config.loss > 0) transport = tcpLoss(io, { loss: config.loss, seed: config.seed });
const server = core.createServer({ protocol, systems, transport, scheduler: core.realTimeScheduler, log, snapshotBudgetBytes: 1100 });
server.events.on('join', (c: core.Connection<{ name: string }>) => server.spawn('player', {}, { owner: c.networkId }));
server.start();
const { port } = await io.ready();
console.log(JSON.stringify({ ready: port }));

let mark = { cpu: process.cpuUsage(), at: performance.now() };
const report = () => {
  const cpu = process.cpuUsage(mark.cpu);
  const paths = [...server.connections.values()].map((c) => server.transportStats(c)?.unreliablePath ?? 'socket.io');
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - mark.at, paths, logs: logs.slice(-20) };
};
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'mark') mark = { cpu: process.cpuUsage(), at: performance.now() };
  else if (line === 'report') console.log(JSON.stringify({ report: report() }));
  else if (line === 'exit') {
    server.close();
    setTimeout(() => process.exit(0), 200);
  }
});
