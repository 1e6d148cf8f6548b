// Network namespaces for the WebRTC tests and bench: WebRTC will not connect over the
// loopback interface alone, and tests must never use the machine's own interfaces. A
// namespace is created per run (unique name) with a veth pair on 10.213.0.1/.2 (both ends
// inside it), and deleted after. Where it cannot be created (not root, no iproute2, no
// veth), `createNetns` says why, for the tests to skip with that reason.
import { execFileSync } from 'node:child_process';

export interface Netns {
  readonly name: string;
  /** The server's address inside the namespace. */
  readonly host: string;
  /** Command prefix that runs a program inside it. */
  readonly prefix: string[];
  remove(): void;
}

let counter = 0;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
}

/** A fresh namespace, or the reason none can be made here. */
export function createNetns(): Netns | { skip: string } {
  const name = `rnc-${process.pid}-${counter++}`;
  try {
    ip('netns', 'add', name);
  } catch (err) {
    return { skip: `cannot create a network namespace (ip netns add ${name}: ${String((err as { stderr?: unknown }).stderr ?? err).trim()}); WebRTC tests need one (run as root with iproute2)` };
  }
  const remove = (): void => {
    try {
      ip('netns', 'del', name);
    } catch {
      // already gone
    }
  };
  try {
    ip('-n', name, 'link', 'set', 'lo', 'up');
    ip('-n', name, 'link', 'add', 'rnc0', 'type', 'veth', 'peer', 'name', 'rnc1');
    ip('-n', name, 'addr', 'add', '10.213.0.1/24', 'dev', 'rnc0');
    ip('-n', name, 'addr', 'add', '10.213.0.2/24', 'dev', 'rnc1');
    ip('-n', name, 'link', 'set', 'rnc0', 'up');
    ip('-n', name, 'link', 'set', 'rnc1', 'up');
  } catch (err) {
    remove();
    return { skip: `cannot set up a veth pair in a network namespace: ${String((err as { stderr?: unknown }).stderr ?? err).trim()}` };
  }
  return { name, host: '10.213.0.1', prefix: ['ip', 'netns', 'exec', name], remove };
}
