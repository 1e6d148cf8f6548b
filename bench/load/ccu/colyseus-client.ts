// CCU bench, client side: a Colyseus client (@colyseus/sdk 0.18) in the arena room. It joins its
// room by id (retried a few times), and every frame sends one `input` message (stick + running jump count, msgpack).
// What it skips: decoding patches — once joined, the SDK's `serializer.patch` is replaced by a
// counter, so the schema decoder never runs. Colyseus patches are not acknowledged, so nothing
// the server does depends on it.
import { Client, type Room } from '@colyseus/sdk';
import type { ColyseusInput } from './colyseus-rooms.ts';
import type { ClientCounters, LoadClient } from './lean-client.ts';
import type { Endpoint } from './rooms.ts';

const JOIN_ATTEMPTS = 5;

export class ColyseusLoadClient implements LoadClient {
  readonly counters: ClientCounters = { frames: 0, inputsSent: 0, updates: 0, bytesUp: 0, bytesDown: 0 };
  readonly current = { move: { x: 0, y: 0 } };
  private jumps = 0;
  private room: Room | undefined;
  private closed: string | undefined;
  private readonly message: ColyseusInput = { x: 0, y: 0, jump: 0 };

  constructor(endpoint: Endpoint, name: string) {
    void this.join(new Client(endpoint.url), endpoint.room ?? '', name);
  }

  /** joinById (an HTTP seat reservation, then the WebSocket), retried: a loaded machine drops some of a burst of requests. */
  private async join(client: Client, roomId: string, name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const room = await client.joinById(roomId, { name });
        const serializer = room.serializer as unknown as { patch: (...args: unknown[]) => void };
        serializer.patch = () => void this.counters.updates++;
        room.onLeave(() => (this.closed ??= 'left'));
        room.onError((code, message) => (this.closed ??= `error ${code}: ${String(message)}`));
        if (this.closed !== undefined) void room.leave();
        else this.room = room;
        return;
      } catch (error) {
        if (attempt >= JOIN_ATTEMPTS || this.closed !== undefined) {
          this.closed ??= `join failed ${attempt} times: ${error instanceof Error ? error.message : String(error)}`;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  get inRoom(): boolean {
    return this.room !== undefined && this.closed === undefined;
  }

  get closedReason(): string | undefined {
    return this.closed;
  }

  press(): void {
    this.jumps++;
  }

  frame(): void {
    this.counters.frames++;
    if (!this.inRoom) return;
    this.message.x = this.current.move.x;
    this.message.y = this.current.move.y;
    this.message.jump = this.jumps;
    this.room!.send('input', this.message);
    this.counters.inputsSent++;
  }

  close(): void {
    this.closed ??= 'load run over';
    void this.room?.leave().catch(() => {});
  }
}
