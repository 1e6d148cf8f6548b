// @vitest-environment jsdom
// The R3F components rendered outside a <Canvas> (inside the provider, as a newcomer puts
// <NetcodeFrame/> next to the Canvas): a react-netcode usage error that says what to do,
// not R3F's "Hooks can only be used within the Canvas component!".

import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NetcodeFrame, NetDebug, VisualProxy } from '../../src/r3f/index.ts';
import { Catch } from './catch.tsx';
import { spaceProtocol, spaceSystems } from './fixtures.ts';
import { createTestNetcode } from './test-netcode.tsx';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('R3F components outside <Canvas>', () => {
  it('each throws a NetcodeError naming itself and what to do instead', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const h = createTestNetcode(spaceProtocol, spaceSystems);
    const ship = h.stepper.server.spawn('ship', {});
    const errors: unknown[] = [];
    const tryRender = (node: React.ReactNode): void => {
      render(<h.Provider><Catch onError={(e) => errors.push(e)}>{node}</Catch></h.Provider>);
      cleanup();
    };
    tryRender(<NetcodeFrame />);
    tryRender(<VisualProxy ghost={ship as never} />);
    tryRender(<NetDebug />);
    expect(errors.map(String)).toEqual([
      'NetcodeError: react-netcode: <NetcodeFrame> must be rendered inside <Canvas>; without a Canvas <NetcodeProvider> steps the engine itself, so remove <NetcodeFrame/>.',
      expect.stringMatching(/^NetcodeError: react-netcode: <VisualProxy> must be rendered inside <Canvas>; outside a 3D scene read the render values with useGhost/),
      expect.stringMatching(/^NetcodeError: react-netcode: <NetDebug> must be rendered inside <Canvas>; it draws in the 3D scene/),
    ]);
    expect(h.claims()).toBe(0); // the provider's own loop keeps stepping
  });
});
