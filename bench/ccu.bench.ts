// CCU benchmark, the short case of `npm run load` (bench/load/ccu/): 20 and 60 headless clients at
// 30 fps in arena rooms of 16 players (2 and 4 rooms), react-netcode and the Colyseus 0.18 peer interleaved, the server pinned to
// core 0 and the clients to core 1, 4 s measured per case (≈ 45 s in all). The full sweep to the
// tick budget is `npm run load -- --sweep`. Prints the table and, last, one `BENCH {"bench":"ccu",…}` line.
import { canPin } from './load/server-control.ts';
import { sweep } from './load/ccu/load.ts';
import { printCcu } from './load/ccu/print.ts';

export async function run(): Promise<void> {
  const startedAt = performance.now();
  const info = { pin: canPin(), fps: 30, seconds: 4, warmupSeconds: 2, startedAt };
  const rows = await sweep({ systems: ['react-netcode', 'colyseus'], counts: [20, 60], roomSize: 16, ...info });
  printCcu(rows, ['react-netcode', 'colyseus'], { ...info, rooms: 'of 16 players' });
}
