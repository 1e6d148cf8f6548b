// @vitest-environment jsdom
// The provider's own join (the `join` prop) never fails silently: a payload the client
// cannot send, or one the server refuses, is logged once as a warning with what to do,
// beside useConnection().joinError.

import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/index.ts';
import { createNetcode } from '../../src/react/index.ts';
import { runnerProtocol, runnerSystems } from '../helpers/runner.ts';
import { createHarness } from './harness.tsx';

afterEach(cleanup);

const rn = createNetcode(runnerProtocol, runnerSystems);

async function provider(name: string, onJoin?: (payload: { name: string }) => true | { reject: string }) {
  const h = createHarness(runnerProtocol, runnerSystems, onJoin ? { onJoin: (_c, payload) => onJoin(payload) } : {});
  const warnings: string[] = [];
  const log: Logger = (level, message) => void (level === 'warn' && warnings.push(message));
  let joinError: string | undefined;
  function Probe() {
    joinError = rn.useConnection().joinError;
    return null;
  }
  await act(async () =>
    render(
      <rn.NetcodeProvider transport={h.transport} join={{ name }} clientOptions={{ log }} clock={h.clock}>
        <Probe />
      </rn.NetcodeProvider>,
    ),
  );
  h.frames(30);
  return { warnings, joinError: () => joinError };
}

describe('the provider’s join prop', () => {
  it('a payload the client cannot send (a name over its 16 characters) is logged once, with what to do', async () => {
    const { warnings, joinError } = await provider('a name far too long for sixteen');
    expect(joinError()).toMatch(/^react-netcode: /);
    expect(warnings).toEqual([expect.stringMatching(/^react-netcode: <NetcodeProvider join> cannot join: .+ \(useConnection\(\)\.joinError holds this; change the join prop to try again\)\.$/)]);
  });

  it('a join the server refuses is logged once with its reason', async () => {
    const { warnings, joinError } = await provider('   ', () => ({ reject: 'pick a name' }));
    expect(joinError()).toBe('pick a name');
    expect(warnings).toEqual(['react-netcode: the server refused <NetcodeProvider join>: pick a name. useConnection().joinError holds the reason; change the join prop to try again.']);
  });

  it('an accepted join logs nothing', async () => {
    const { warnings, joinError } = await provider('ada');
    expect(joinError()).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});

describe('the provider’s transport prop', () => {
  it('missing: the error names the prop and shows one, not createClient’s options', () => {
    const quietConsole = vi.spyOn(console, 'error').mockImplementation(() => {});
    const Provider = rn.NetcodeProvider as unknown as (props: { children?: unknown }) => null;
    expect(() => render(<Provider />)).toThrow("react-netcode: <NetcodeProvider> needs a transport prop: transport={() => createSocketIoClientTransport('http://localhost:3000')}");
    quietConsole.mockRestore();
  });
});
