// A TCP listener on 127.0.0.1 that hangs up on every connection at once: a game server's port
// with nothing serving it yet (a WebSocket upgrade there fails), which counts the attempts made.
import { createServer, type Server } from 'node:net';

export interface Refuser {
  readonly port: number;
  /** Connections it hung up on so far. */
  readonly attempts: number;
  /** Stop listening (the port is free for the real server). */
  close(): Promise<void>;
}

/** Listen on `port` (0 = any free one) and refuse every connection. */
export async function refuseConnections(port = 0): Promise<Refuser> {
  let attempts = 0;
  const server: Server = createServer((socket) => {
    attempts++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : port,
    get attempts() {
      return attempts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
