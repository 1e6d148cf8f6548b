// Headless demo players through the matchmaker, as the lobby and the bots connect: a seat
// from the demo server's HTTP matchmaking (quick play, a new private match, a code), then a
// netcode client over socket.io that presents it (seatedTransport), pumped on a timer.
import { createClient, type Logger, type NetClient } from '../../src/index.ts';
import { createMatchmakerClient, seatedTransport, type Matchmaker, type Seat } from '../../src/rooms/index.ts';
import { createSocketIoClientTransport } from '../../src/socket-io/index.ts';
import { protocol, type DemoProtocol } from '../../demo/shared/protocol.ts';

const quiet: Logger = () => {};

/** The demo server's matchmaker at `url` (http://127.0.0.1:port). */
export function demoMatchmaker(url: string): Matchmaker {
  return createMatchmakerClient(`${url}/matchmake`, { attempts: 1 });
}

export interface SeatedPlayer {
  seat: Seat;
  client: NetClient<DemoProtocol>;
  /** Stop pumping and leave. */
  close: () => void;
}

/** A client seated by `seat`, connected (not joined: call client.join) and pumped every 2 ms. */
export function seatedClient(url: string, seat: Seat): SeatedPlayer {
  const client = createClient({ protocol, transport: seatedTransport(createSocketIoClientTransport(seat.url ?? url), seat), log: quiet });
  const pump = setInterval(() => client.update(performance.now()), 2);
  client.connect();
  return {
    seat,
    client,
    close: () => {
      clearInterval(pump);
      client.leave();
    },
  };
}
