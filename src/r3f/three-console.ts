// three.js logs through a console function an app may set (setConsoleFunction). R3F 9.8
// creates a THREE.Clock for every <Canvas> root (its store's `clock`), and three 0.187
// deprecates Clock in favour of Timer with a warning on each construction: a call inside
// R3F, not one an app makes. `hideR3fClockWarning` drops that one message and passes every
// other one on, to the console function set before it or to the console.

import { getConsoleFunction, setConsoleFunction } from 'three';

const R3F_CLOCK_WARNING = 'THREE.Clock: This module has been deprecated. Please use THREE.Timer instead.';
let installed = false;

/**
 * Drop three's "THREE.Clock: This module has been deprecated" warning, which R3F's own clock
 * causes once per `<Canvas>`; every other three message goes where it went. Call it once,
 * before the first `<Canvas>` (more calls do nothing). An app that sets its own three console
 * function should set it first: that function then receives everything else.
 */
export function hideR3fClockWarning(): void {
  if (installed) return;
  installed = true;
  const previous = getConsoleFunction();
  setConsoleFunction((type: 'log' | 'warn' | 'error', message: string, ...params: unknown[]) => {
    if (type === 'warn' && message === R3F_CLOCK_WARNING) return;
    if (previous) return previous(type, message, ...params);
    const method = type === 'error' ? console.error : type === 'warn' ? console.warn : console.log;
    method(message, ...params);
  });
}
