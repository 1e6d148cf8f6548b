// A loopback client transport whose link can be made half-open, as a real link can be: the client
// sees it close (a dead Wi-Fi, its socket's own timeout) while the server still holds it open.
import type { ClientTransport, ClientTransportHandler } from '../../src/core/transport.ts';
import type { LoopbackNetwork } from '../../src/transport/loopback.ts';

/** A loopback client transport whose link can go half-open: the client is told it closed, the server is not. */
export function halfOpenable(network: LoopbackNetwork) {
  let handler: ClientTransportHandler | undefined;
  let inner: ClientTransport | undefined;
  const serverClosed: string[] = [];
  const transport: ClientTransport = {
    connect(h, intent) {
      handler = h;
      const mine = network.createClient();
      inner = mine;
      mine.connect({
        onOpen: () => inner === mine && h.onOpen(),
        onMessage: (d, ch) => inner === mine && h.onMessage(d, ch),
        onClose: (r) => (inner === mine ? h.onClose(r) : void serverClosed.push(r)),
      }, intent);
    },
    send: (d, ch) => inner?.send(d, ch),
    close: (r) => inner?.close(r),
  };
  return {
    transport,
    /** Reasons the server gave when it closed links this transport left half-open. */
    serverClosed,
    halfOpen(): void {
      inner = undefined; // the old link stays open on the server; what it delivers now goes nowhere
      handler!.onClose('test: the link went half-open');
    },
  };
}

