// useInput: fills the local input once per predicted tick. Samplers (functions)
// and bindings (keyboardAxes, pressOnKey …) are registered with the engine, which
// calls them from the client's onInput — just before each tick's input is
// committed and sent. While the page is hidden the engine sends a neutral input.

import { useEffect } from 'react';
import type { Protocol } from '../index.ts';
import type { InputSampler } from './engine.ts';
import type { InputBinding } from './input-bindings.ts';
import { useEngine } from './use-engine.ts';
import { useLatest } from './use-latest.ts';

/** What useInput takes: a sampler, a binding, or a list of both. */
export type InputSource<P extends Protocol = Protocol> = InputSampler<P> | InputBinding | readonly (InputSampler<P> | InputBinding)[];

export interface UseInputOptions {
  /** Where bindings listen (default `window`; `null` binds nothing, e.g. while a chat box has focus). */
  target?: EventTarget | null;
}

const ids = new WeakMap<InputBinding, number>();
let nextId = 1;
const idOf = (b: InputBinding): number => ids.get(b) ?? (ids.set(b, nextId), nextId++);

/**
 * Fill the local input for each predicted tick. `sample(input, tick)` is called exactly
 * once per tick the client predicts (not per render frame: at 144 Hz with a 60 Hz tick
 * rate, about every 2.4 frames), before the tick's input is committed and sent; write
 * the fields of `input` in place. Bindings fill their fields first, then samplers run in
 * order, so a sampler can override a binding. Presses (`field.event()`) bound with
 * pressOnKey / pressOnPointer count at the DOM event, so taps between ticks are kept.
 *
 * The latest sampler is always called (no re-subscription per render). Bindings re-bind
 * when their identity changes: create them once (module scope or useMemo).
 *
 * While the page is hidden, samplers are skipped and a neutral input is sent (with the
 * default `pauseWhenHidden` the client pauses and does that itself).
 *
 * @example
 * const controls = [keyboardAxes({ up: 'KeyW', down: 'KeyS', left: 'KeyA', right: 'KeyD' }), pressOnKey('Space', 'jump')];
 * function Controls() {
 *   useInput(controls);
 *   useInput((input) => { input.aim = aimRef.current; });
 *   return null;
 * }
 *
 * @throws `react-netcode: useInput must be used inside <NetcodeProvider> …` outside a provider;
 *   a binding whose field is missing or of the wrong kind throws a `react-netcode:` error naming the fields.
 */
export function useInput<P extends Protocol = Protocol>(source: InputSource<P>, options: UseInputOptions = {}): void {
  const engine = useEngine<P>('useInput');
  const list = (Array.isArray(source) ? source : [source]) as readonly (InputSampler<P> | InputBinding)[];
  const samplers = list.filter((s): s is InputSampler<P> => typeof s === 'function');
  const bindings = list.filter((s): s is InputBinding => typeof s !== 'function');
  const latestSamplers = useLatest(samplers);
  const latestBindings = useLatest(bindings);
  const target = options.target === undefined ? (typeof window !== 'undefined' ? window : null) : options.target;
  const bindingKey = bindings.map(idOf).join(',');

  useEffect(() => {
    const bound: ReturnType<InputBinding['bind']>[] = [];
    try {
      if (target) for (const b of latestBindings.current) bound.push(b.bind(engine.client as never, target));
    } catch (error) {
      for (const b of bound) b.dispose();
      throw error;
    }
    const off = engine.addInputSampler((input, tick) => {
      for (let i = 0; i < bound.length; i++) bound[i]!.sample?.(input as Record<string, unknown>, tick);
      const samplers = latestSamplers.current;
      for (let i = 0; i < samplers.length; i++) samplers[i]!(input, tick);
    });
    return () => {
      off();
      for (const b of bound) b.dispose();
    };
  }, [engine, target, bindingKey, latestBindings, latestSamplers]);
}
