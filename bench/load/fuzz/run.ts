// `npm run fuzz`: the structure-aware protocol fuzzer (bench/load/fuzz/README.md).
//   npm run fuzz                          # full run: 10^6 packets on loopback, 10^5 on socket.io
//   npm run fuzz -- --loopback 20000 --socketio 2000 --seed 7 [--connections 48 (socket.io)]
// Exits 1 when anything escaped containment, a tick was lost, an out-of-bounds value got
// through, or the well-behaved client saw a snapshot gap or a state error.
import { fuzzLoopback } from './loopback.ts';
import { fuzzSocketIo } from './socketio.ts';
import { clean, formatReport, type FuzzReport } from './report.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 0) throw new Error(`react-netcode: --${name} needs a whole number, got ${String(process.argv[i + 1])}.`);
  return v;
}

const seed = arg('seed', 1);
const reports: FuzzReport[] = [];
const loopback = arg('loopback', 1_000_000);
if (loopback > 0) {
  const r = fuzzLoopback({ packets: loopback, seed });
  console.log(formatReport(r), '\n');
  reports.push(r);
}
const socketio = arg('socketio', 100_000);
if (socketio > 0) {
  const r = await fuzzSocketIo({ packets: socketio, seed, connections: arg('connections', 48), burst: 4 });
  console.log(formatReport(r), '\n');
  reports.push(r);
}
process.exitCode = reports.every(clean) ? 0 : 1;
