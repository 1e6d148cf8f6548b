// three.js logs through a console function the app may set (setConsoleFunction). R3F
// 9.8 creates a THREE.Clock for every <Canvas> root (its store's `clock`), and three
// 0.187 deprecates Clock in favour of Timer with a warning on each construction: a call
// inside R3F, not one the demo makes. That one message is dropped; every other three
// message goes to the console as before. Remove this when R3F moves to THREE.Timer.
import { setConsoleFunction } from 'three';

const R3F_CLOCK_WARNING = 'THREE.Clock: This module has been deprecated. Please use THREE.Timer instead.';

/** Route three's messages to the console, without R3F's Clock warning. Called once, before the first <Canvas>. */
export function routeThreeConsole(): void {
  setConsoleFunction((type: string, message: string, ...params: unknown[]) => {
    if (type === 'warn' && message === R3F_CLOCK_WARNING) return;
    const method = type === 'error' ? console.error : type === 'warn' ? console.warn : console.log;
    method(message, ...params);
  });
}
