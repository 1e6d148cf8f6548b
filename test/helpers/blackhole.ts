// A TCP proxy on 127.0.0.1 that can black-hole its links: `freeze()` stops forwarding on every
// link open now — both ends stay connected, nothing more passes, no FIN, no RST — as a link
// that died somewhere between (a dead Wi-Fi, a NAT that forgot the mapping) looks to both
// sides. Links opened after it forward as usual. For half-open tests over real sockets.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface BlackholeProxy {
  readonly port: number;
  /** Links opened so far. */
  readonly links: number;
  /** Stop forwarding on every link open now (they stay open). */
  freeze(): void;
  close(): Promise<void>;
}

export async function blackholeProxy(targetPort: number): Promise<BlackholeProxy> {
  const open = new Set<{ a: Socket; b: Socket; frozen: boolean }>();
  let links = 0;
  const server: Server = createServer((a) => {
    links++;
    const b = connect(targetPort, '127.0.0.1');
    const link = { a, b, frozen: false };
    open.add(link);
    a.on('data', (d) => void (link.frozen || b.write(d)));
    b.on('data', (d) => void (link.frozen || a.write(d)));
    const end = (): void => {
      if (link.frozen) return; // a black hole passes no close either
      a.destroy();
      b.destroy();
      open.delete(link);
    };
    a.on('close', end).on('error', end);
    b.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    get links() {
      return links;
    },
    freeze() {
      for (const link of open) link.frozen = true;
    },
    close: async () => {
      for (const link of open) {
        link.a.destroy();
        link.b.destroy();
      }
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
