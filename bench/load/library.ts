// Load harness: the library under test. Every other module of bench/load reaches
// react-netcode through a `Library` — this repository's src/ by default, or the src/
// of another checkout (`root`, e.g. a scratch worktree of an older commit), loaded at
// run time so that the same harness measures before and after a change. Types are
// always this repository's; an older checkout may lack newer members, so callers read
// optional features (`inputArrivals`, `traffic`, `inputReports` …) defensively.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as thisCore from '../../src/index.ts';
import * as thisSocketIo from '../../src/socket-io/index.ts';

export type Core = typeof thisCore;
export type SocketIo = typeof thisSocketIo;

export interface Library {
  /** Checkout the library was loaded from (absolute). */
  readonly root: string;
  readonly core: Core;
  readonly socketIo: SocketIo;
}

/** This repository (the default library root). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const cache = new Map<string, Promise<Library>>();

/**
 * The library at `root` (default: this repository). Another root is imported from its
 * `src/index.ts` and `src/socket-io/index.ts`, so the process must run TypeScript
 * (tsx); its dependencies (socket.io …) resolve from that checkout's node_modules.
 */
export function loadLibrary(root?: string): Promise<Library> {
  const at = resolve(root ?? REPO_ROOT);
  if (at === REPO_ROOT) return Promise.resolve({ root: REPO_ROOT, core: thisCore, socketIo: thisSocketIo });
  let loading = cache.get(at);
  if (loading === undefined) {
    loading = importFrom(at);
    cache.set(at, loading);
  }
  return loading;
}

async function importFrom(root: string): Promise<Library> {
  const entry = join(root, 'src/index.ts');
  if (!existsSync(entry) || !existsSync(join(root, 'node_modules'))) {
    throw new Error(`react-netcode: no library checkout at ${root} (need src/index.ts and node_modules); run \`npm ci\` there or pass another root.`);
  }
  const core = (await import(pathToFileURL(entry).href)) as Core;
  const socketIo = (await import(pathToFileURL(join(root, 'src/socket-io/index.ts')).href)) as SocketIo;
  return { root, core, socketIo };
}
