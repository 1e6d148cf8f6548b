// hideR3fClockWarning: three's "THREE.Clock … deprecated" warning, which R3F's own clock causes
// once per <Canvas>, is dropped; every other three message goes on to the console function set
// before it (or the console). Calling it again changes nothing.
import { Clock, getConsoleFunction, setConsoleFunction, warn } from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hideR3fClockWarning } from '../../src/r3f/index.ts';

const original = getConsoleFunction();
afterEach(() => setConsoleFunction(original as never));

describe('hideR3fClockWarning', () => {
  it("drops three's Clock deprecation warning and passes every other message to the console function set before", () => {
    const seen: string[] = [];
    setConsoleFunction((type, message) => void seen.push(`${type}: ${message}`));
    const direct = vi.spyOn(console, 'warn').mockImplementation(() => {});
    new Clock(); // contrast: warns before
    hideR3fClockWarning();
    hideR3fClockWarning(); // once is enough: not chained twice
    new Clock();
    warn('Something else: keep me.');
    direct.mockRestore();
    expect(seen).toEqual([
      'warn: THREE.Clock: This module has been deprecated. Please use THREE.Timer instead.',
      'warn: THREE.Something else: keep me.',
    ]);
    expect(direct).not.toHaveBeenCalled();
  });
});
