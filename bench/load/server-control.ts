// Load harness, harness side: spawns server-process.ts in its own Node process (with
// tsx, so it runs this checkout's TypeScript) and talks to it over the IPC channel of
// ipc.ts. Each request waits at most `timeoutMs`; a child that dies fails every
// pending request with its exit code and the tail of its stderr.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Endpoint } from './ccu/rooms.ts';
import type { Reply, Request, ServerConfig, ServerReport } from './ipc.ts';
import { REPO_ROOT } from './library.ts';

const ENTRY = join(REPO_ROOT, 'bench/load/server-process.ts');

export interface ServerProcessOptions {
  /** Longest wait for one reply (ms, default 20,000; the machine may be loaded). */
  timeoutMs?: number;
  /** Pin the process to this CPU (`taskset -c <cpu>`, util-linux); check `canPin()` first. */
  cpu?: number;
  /** Another entry speaking the same request/reply protocol (default: server-process.ts). */
  entry?: string;
  /** Extra Node options for the child (e.g. `--cpu-prof`). */
  nodeArgs?: readonly string[];
}

/** Whether `taskset` (util-linux) is there to pin processes to a core. */
export function canPin(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
}

export class ServerProcess {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  private stderr = '';
  private exited: string | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly timeoutMs: number,
  ) {
    child.stderr?.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    child.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      clearTimeout(p.timer);
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new Error(`react-netcode: the load server process failed: ${reply.error}`));
    });
    child.on('exit', (code, signal) => {
      this.exited = `exited (code ${String(code)}, signal ${String(signal)})`;
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error(`react-netcode: the load server process ${this.exited}; its stderr ended with: ${this.stderr.slice(-1500)}`));
      }
      this.pending.clear();
    });
  }

  /** Spawn the server process; resolves once it is running (it serves nothing until `start`). */
  static spawn(options: ServerProcessOptions = {}): ServerProcess {
    const tsx = pathToFileURL(createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx')).href;
    const args = [...(options.nodeArgs ?? []), '--import', tsx, options.entry ?? ENTRY];
    const stdio: ['ignore', 'inherit', 'pipe', 'ipc'] = ['ignore', 'inherit', 'pipe', 'ipc'];
    const child =
      options.cpu === undefined ? spawn(process.execPath, args, { cwd: REPO_ROOT, stdio })
      : spawn('taskset', ['-c', String(options.cpu), process.execPath, ...args], { cwd: REPO_ROOT, stdio }); // taskset execs node: same pid, same IPC fd
    return new ServerProcess(child, options.timeoutMs ?? 20_000);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** A request of another entry's protocol (`options.entry`), answered like the server's. */
  call<T>(request: { type: string }): Promise<T> {
    return this.request<T>(request as Request);
  }

  private request<T>(request: Request): Promise<T> {
    if (this.exited !== undefined) return Promise.reject(new Error(`react-netcode: the load server process ${this.exited}; spawn a new one.`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`react-netcode: the load server process did not answer '${request.type}' within ${this.timeoutMs} ms; is the machine overloaded? Raise timeoutMs.`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.child.send({ id, request });
    });
  }

  /** Start a server; resolves with its port on 127.0.0.1. */
  async start(config: ServerConfig): Promise<number> {
    return (await this.request<{ port: number }>({ type: 'start', config })).port;
  }

  /** Start a server of several endpoints (mode `ccu`); resolves with where each room is. */
  async startRooms(config: ServerConfig): Promise<readonly Endpoint[]> {
    return (await this.request<{ endpoints?: Endpoint[] }>({ type: 'start', config })).endpoints ?? [];
  }

  mark = (): Promise<void> => this.request({ type: 'mark' });
  quiesce = (): Promise<void> => this.request({ type: 'quiesce' });
  report = (): Promise<ServerReport> => this.request({ type: 'report' });
  stop = (): Promise<void> => this.request({ type: 'stop' });

  /** Stop whatever runs and end the process (killed if it does not exit within the timeout). */
  async exit(): Promise<void> {
    if (this.exited !== undefined) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    await this.request({ type: 'stop' }).catch(() => {});
    await this.request({ type: 'exit' }).catch(() => {});
    const timer = setTimeout(() => this.child.kill('SIGKILL'), this.timeoutMs);
    await gone;
    clearTimeout(timer);
  }
}
