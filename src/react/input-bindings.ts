// Keyboard and pointer bindings for useInput: small objects that listen to DOM
// events while bound and fill the input. Held keys are sampled once per predicted
// tick (axes, booleans); presses go straight to `client.input.press`, so a tap
// between two ticks is never lost. Focus loss and a hidden page release every key.

import type { NetClient, Protocol, Tick, Vec2 } from '../index.ts';
import { NetcodeError } from '../core/errors.ts';

/** A live binding: fills each tick's input and stops listening on dispose. */
export interface BoundInput {
  /** Write this binding's part of the input of `tick` (called once per predicted tick). */
  sample?(input: Record<string, unknown>, tick: Tick): void;
  /** Remove every listener. */
  dispose(): void;
}

/** A reusable description of an input binding; `useInput` binds it while mounted. */
export interface InputBinding {
  /** Human-readable description, used in error messages. */
  readonly describe: string;
  /** Start listening on `target` for `client`'s input. */
  bind(client: NetClient<Protocol>, target: EventTarget): BoundInput;
}

/** Key codes (KeyboardEvent.code, e.g. 'KeyW', 'ArrowUp') for each direction; arrays bind several keys. */
export interface AxisKeys {
  up: string | readonly string[];
  down: string | readonly string[];
  left: string | readonly string[];
  right: string | readonly string[];
}

export interface KeyboardAxesOptions {
  /** The vec2 input field to write (default 'move'): x = right − left, y = up − down. */
  field?: string;
  /** Scale diagonals to length 1 (default true). */
  normalize?: boolean;
}

const codes = (k: string | readonly string[]): readonly string[] => (typeof k === 'string' ? [k] : k);

function checkField(client: NetClient<Protocol>, field: string, kind: string, binding: string): void {
  const f = client.protocol.input.schema[field];
  if (f?.kind === kind) return;
  const fields = client.protocol.input.keys.map((k) => `${k} (${client.protocol.input.schema[k]!.kind})`).join(', ') || '(none)';
  throw new NetcodeError('usage', `react-netcode: ${binding} needs a ${kind} input field "${field}"${f ? `, but it is ${f.kind}` : ', which the protocol does not declare'}; pass a ${kind} field of defineProtocol({ input }) (fields: ${fields}).`);
}

/** Add each `[target, type, handler]` listener (undefined targets are skipped); returns the function that removes them all. */
function listenAll(entries: readonly (readonly [EventTarget | undefined, string, (e: Event) => void])[]): () => void {
  for (const [t, type, fn] of entries) t?.addEventListener(type, fn);
  return () => {
    for (const [t, type, fn] of entries) t?.removeEventListener(type, fn);
  };
}

/** Listen to key codes on `target`; held keys are released on blur and when the page hides. */
function trackKeys(target: EventTarget, watched: ReadonlySet<string>, onPress?: (e: KeyboardEvent) => void) {
  const held = new Set<string>();
  const down = (e: Event): void => {
    const k = e as KeyboardEvent;
    if (!watched.has(k.code)) return;
    held.add(k.code);
    onPress?.(k);
  };
  const up = (e: Event): void => void held.delete((e as KeyboardEvent).code);
  const release = (): void => held.clear();
  const doc = typeof document !== 'undefined' ? document : undefined;
  target.addEventListener('keydown', down);
  target.addEventListener('keyup', up);
  target.addEventListener('blur', release);
  doc?.addEventListener('visibilitychange', release);
  return {
    held,
    dispose: (): void => {
      target.removeEventListener('keydown', down);
      target.removeEventListener('keyup', up);
      target.removeEventListener('blur', release);
      doc?.removeEventListener('visibilitychange', release);
      held.clear();
    },
  };
}

/**
 * WASD-style axes into a vec2 input field (default `move`): x = right − left, y = up − down.
 * @example useInput(keyboardAxes({ up: ['KeyW', 'ArrowUp'], down: 'KeyS', left: 'KeyA', right: 'KeyD' }))
 */
export function keyboardAxes(keys: AxisKeys, options: KeyboardAxesOptions = {}): InputBinding {
  const field = options.field ?? 'move';
  const normalize = options.normalize ?? true;
  const dirs = { up: codes(keys.up), down: codes(keys.down), left: codes(keys.left), right: codes(keys.right) };
  const watched = new Set([...dirs.up, ...dirs.down, ...dirs.left, ...dirs.right]);
  const describe = `keyboardAxes(${field})`;
  return {
    describe,
    bind(client, target) {
      checkField(client, field, 'vec2', describe);
      const keys = trackKeys(target, watched);
      const any = (list: readonly string[]): number => (list.some((c) => keys.held.has(c)) ? 1 : 0);
      return {
        sample(input) {
          let x = any(dirs.right) - any(dirs.left);
          let y = any(dirs.up) - any(dirs.down);
          if (normalize && x !== 0 && y !== 0) {
            x *= Math.SQRT1_2;
            y *= Math.SQRT1_2;
          }
          const v = input[field] as Vec2;
          v.x = x;
          v.y = y;
        },
        dispose: keys.dispose,
      };
    },
  };
}

export interface PressOptions {
  /**
   * Hold to repeat: while the key / button stays down, one more press every this many
   * predicted ticks after the first (e.g. 15 at 60 Hz = 4 per second). Counted on the
   * tick clock, so the rate does not depend on the frame rate. Default: no repeat (one
   * press per press; keyboard auto-repeat is always ignored).
   */
  repeatEveryTicks?: number;
}

function checkRepeat(options: PressOptions, binding: string): number {
  const n = options.repeatEveryTicks;
  if (n === undefined) return 0;
  if (!Number.isInteger(n) || n < 1) throw new NetcodeError('usage', `react-netcode: ${binding} got repeatEveryTicks ${String(n)}; pass a whole number of ticks ≥ 1 (or leave it out for no repeat).`);
  return n;
}

/** While held, press again every `every` ticks (0: never); `sample` runs once per predicted tick. */
function repeater(client: NetClient<Protocol>, field: string, every: number, isHeld: () => boolean) {
  let since = 0;
  return {
    pressed(): void {
      since = 0;
    },
    sample(): void {
      if (every === 0 || !isHeld()) return;
      if (++since >= every) {
        since = 0;
        client.input.press(field as never);
      }
    },
  };
}

/**
 * Count one press of a `field.event()` input per key press (auto-repeat ignored);
 * `repeatEveryTicks` keeps pressing while the key is held.
 * @example pressOnKey('Space', 'jump')
 */
export function pressOnKey(code: string, field: string, options: PressOptions = {}): InputBinding {
  const describe = `pressOnKey(${code}, ${field})`;
  const every = checkRepeat(options, describe);
  return {
    describe,
    bind(client, target) {
      checkField(client, field, 'event', describe);
      // `keys` is read only when a tick samples, after it is assigned below.
      const repeat = repeater(client, field, every, () => keys.held.has(code));
      const keys = trackKeys(target, new Set([code]), (e) => {
        if (e.repeat) return;
        client.input.press(field as never);
        repeat.pressed();
      });
      return { sample: repeat.sample, dispose: keys.dispose };
    },
  };
}

/** A `field.bool()` input that is true while the key is held. @example holdKey('ShiftLeft', 'sprint') */
export function holdKey(code: string, field: string): InputBinding {
  const describe = `holdKey(${code}, ${field})`;
  return {
    describe,
    bind(client, target) {
      checkField(client, field, 'bool', describe);
      const keys = trackKeys(target, new Set([code]));
      return {
        sample: (input) => void (input[field] = keys.held.has(code)),
        dispose: keys.dispose,
      };
    },
  };
}

/**
 * Count one press of a `field.event()` input per pointer press of `button` (0 = primary,
 * 2 = secondary); `repeatEveryTicks` keeps pressing while the button is held (released on
 * pointerup / pointercancel anywhere in the window, on blur and when the page hides).
 * @example pressOnPointer('fire', { button: 2, repeatEveryTicks: 15 })
 */
export function pressOnPointer(field: string, options: PressOptions & { button?: number } = {}): InputBinding {
  const button = options.button ?? 0;
  const describe = `pressOnPointer(${field})`;
  const every = checkRepeat(options, describe);
  return {
    describe,
    bind(client, target) {
      checkField(client, field, 'event', describe);
      let held = false;
      const repeat = repeater(client, field, every, () => held);
      const down = (e: Event): void => {
        if ((e as MouseEvent).button !== button) return;
        held = true;
        client.input.press(field as never);
        repeat.pressed();
      };
      const up = (e: Event): void => {
        if ((e as MouseEvent).button === button) held = false;
      };
      const release = (): void => void (held = false);
      // Releases are heard on the window too: the pointer may leave the target while held.
      const win = typeof window !== 'undefined' && window !== target ? window : undefined;
      const doc = typeof document !== 'undefined' ? document : undefined;
      const unlisten = listenAll([
        [target, 'pointerdown', down],
        ...[target, win].flatMap((t) => [[t, 'pointerup', up], [t, 'pointercancel', release], [t, 'blur', release]] as const),
        [doc, 'visibilitychange', release],
      ]);
      return {
        sample: repeat.sample,
        dispose: () => {
          unlisten();
          held = false;
        },
      };
    },
  };
}
