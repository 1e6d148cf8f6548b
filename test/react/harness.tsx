// Test harness for the React bindings: a manual frame clock (time moves only when
// the test says so, requestFrame callbacks run only in `frame()`), a server over a
// loopback network in the same test, and helpers that advance one display frame:
// server ticks due → deliver → the provider's loop steps the client → deliver.

import { act } from '@testing-library/react';
import { NetServer } from '../../src/internals.ts';
import { LoopbackNetwork, VirtualScheduler, type ClientTransport, type Logger, type Protocol, type ServerOptions, type SystemDef } from '../../src/index.ts';
import type { FrameClock } from '../../src/react/index.ts';

export const quiet: Logger = () => {};

/** A 64 Hz display: 15.625 ms is exact in binary, so 16 frames are exactly 250 ms (one stats window). */
export const FRAME_MS = 1000 / 64;

export interface ManualClock extends FrameClock<number> {
  /** requestFrame callbacks waiting for the next frame. */
  readonly pending: number;
  /** Frames run so far. */
  readonly frames: number;
  /** Move time forward by `ms` (no callbacks run). */
  advance(ms: number): void;
  /** Run the callbacks requested before this call (the next display frame). */
  runFrame(): void;
}

export function manualClock(startMs = 1000): ManualClock {
  let now = startMs;
  let next = 1;
  let frames = 0;
  const waiting = new Map<number, (time: number) => void>();
  return {
    now: () => now,
    requestFrame(callback) {
      const handle = next++;
      waiting.set(handle, callback);
      return handle;
    },
    cancelFrame(handle) {
      waiting.delete(handle);
    },
    get pending() {
      return waiting.size;
    },
    get frames() {
      return frames;
    },
    advance(ms) {
      now += ms;
    },
    runFrame() {
      frames++;
      const due = [...waiting.values()];
      waiting.clear();
      for (const callback of due) callback(now);
    },
  };
}

export interface Harness<P extends Protocol> {
  readonly network: LoopbackNetwork;
  readonly server: NetServer<P>;
  readonly clock: ManualClock;
  /** Transports handed out by `transport()` and how often each was asked to connect. */
  readonly transports: { created: number; connects: number };
  /** A transport factory for <NetcodeProvider transport>, counting creations and connects. */
  transport(): ClientTransport;
  /** One display frame, inside act(): time += FRAME_MS, server ticks due, deliver, client step, deliver. */
  frame(): void;
  frames(n: number): void;
  /** Frames until `predicate()` holds; throws with `what` after `maxFrames`. Returns the frames run. */
  until(predicate: () => boolean, what: string, maxFrames?: number): number;
}

export function createHarness<P extends Protocol>(protocol: P, systems: readonly SystemDef<P>[] = [], server: Partial<ServerOptions<P>> = {}): Harness<P> {
  const network = new LoopbackNetwork();
  const clock = manualClock();
  const srv = new NetServer<P>({ protocol, systems, transport: network.server, scheduler: new VirtualScheduler(), log: quiet, ...server });
  srv.listen();
  srv.update(clock.now()); // starts the server's accumulator at the clock's origin
  const transports = { created: 0, connects: 0 };
  const h: Harness<P> = {
    network,
    server: srv,
    clock,
    transports,
    transport() {
      transports.created++;
      const inner = network.createClient();
      return {
        connect: (handler) => {
          transports.connects++;
          inner.connect(handler);
        },
        send: (data, channel) => inner.send(data, channel),
        close: (reason) => inner.close(reason),
      };
    },
    frame() {
      act(() => {
        clock.advance(FRAME_MS);
        srv.update(clock.now());
        network.deliver();
        clock.runFrame();
        network.deliver();
      });
    },
    frames(n) {
      for (let i = 0; i < n; i++) h.frame();
    },
    until(predicate, what, maxFrames = 600) {
      for (let i = 0; i < maxFrames; i++) {
        if (predicate()) return i;
        h.frame();
      }
      if (predicate()) return maxFrames;
      throw new Error(`test: ${what} did not happen within ${maxFrames} frames`);
    },
  };
  return h;
}
