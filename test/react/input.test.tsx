// @vitest-environment jsdom
// useInput: the sampler runs once per predicted tick and the server moves the
// player by it; keyboard bindings (axes, presses) reach the server; a hidden page
// pauses the client, or (pauseWhenHidden off) sends neutral inputs.

import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Ghost, Tick } from '../../src/index.ts';
import { createNetcode, type NetcodeContextValue } from '../../src/react/index.ts';
import { runnerProtocol, runnerSystems, SPEED, type RunnerProtocol } from '../helpers/runner.ts';
import { createHarness, quiet, type Harness } from './harness.tsx';

afterEach(() => {
  cleanup();
  setVisibility('visible');
});

const rn = createNetcode(runnerProtocol, runnerSystems);
const controls = [rn.keyboardAxes({ up: 'KeyW', down: 'KeyS', left: 'KeyA', right: 'KeyD' }), rn.pressOnKey('Space', 'jump')];

function setVisibility(state: 'visible' | 'hidden') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

const key = (type: 'keydown' | 'keyup', code: string, repeat = false) => act(() => void window.dispatchEvent(new KeyboardEvent(type, { code, repeat })));

/** A server that gives every joining connection a runner, a provider over it, and the runner on each side. */
async function setup(App: () => null, props: { pauseWhenHidden?: boolean } = {}) {
  const h: Harness<RunnerProtocol> = createHarness(runnerProtocol, runnerSystems);
  let serverRunner: Ghost<RunnerProtocol, 'runner'> | undefined;
  h.server.events.on('join', (c) => void (serverRunner = h.server.spawn('runner', {}, { owner: c.networkId })));
  const ref: { ctx?: NetcodeContextValue<RunnerProtocol> } = {};
  function Probe() {
    ref.ctx = rn.useNetcode();
    return null;
  }
  await act(async () =>
    render(
      <rn.NetcodeProvider transport={h.transport} join={{ name: 'ada' }} clientOptions={{ log: quiet }} clock={h.clock} {...props}>
        <Probe />
        <App />
      </rn.NetcodeProvider>,
    ),
  );
  const client = ref.ctx!.client;
  h.until(() => client.prediction?.lastTick !== undefined && client.world.size === 1, 'predicting the own runner');
  return { h, client, server: () => serverRunner! };
}

describe('useInput', () => {
  it('calls the sampler once per predicted tick, and the server simulates with its input', async () => {
    const ticks: Tick[] = [];
    function App() {
      rn.useInput((input, tick) => {
        ticks.push(tick);
        input.move.x = 1;
      });
      return null;
    }
    const { h, client, server } = await setup(App);
    h.frames(128); // 2000 ms
    // One call per predicted tick: consecutive, none twice, the last one the client's newest committed input.
    expect(ticks.every((t, i) => i === 0 || t === ticks[i - 1]! + 1)).toBe(true);
    expect(ticks.at(-1)).toBe(client.input.newestTick);
    // 2000 ms of 60 Hz ticks = 120 predicted ticks, ± the clock sync's nudges (time scale 0.9–1.1).
    expect(ticks.length).toBeGreaterThan(100);
    expect(client.input.get(ticks.at(-1)!)!.move.x).toBe(1);
    // The server moved the runner SPEED × dt per tick it simulated with our input: x = 4 m/s × n / 60.
    const simulatedWithInput = h.server.currentTick - ticks[0]!;
    expect(server().components.position.x).toBeCloseTo((SPEED * simulatedWithInput) / 60, 6);
  });

  it('keyboard bindings: WASD axes (diagonal normalised) and Space presses reach the server; blur releases keys', async () => {
    function App() {
      rn.useInput(controls);
      return null;
    }
    const { h, client, server } = await setup(App);
    key('keydown', 'KeyD');
    key('keydown', 'KeyW');
    h.frames(8);
    const move = client.input.get(client.input.newestTick!)!.move;
    // √½ = 0.7071 per axis; on the 1/100 grid 0.71 would give length √(2 × 0.71²) = 1.004 > maxLength 1, so 0.70.
    expect([move.x, move.y]).toEqual([0.7, 0.7]);
    key('keydown', 'Space');
    key('keydown', 'Space', true); // auto-repeat: not a press
    key('keyup', 'Space');
    key('keydown', 'Space');
    key('keyup', 'Space');
    h.frames(30);
    expect(server().components.jumps).toBe(2); // two presses, each seen once by the server
    expect(server().components.position.x).toBeGreaterThan(0);
    expect(server().components.position.z).toBeGreaterThan(0); // move.y drives z in the runner system
    act(() => void window.dispatchEvent(new Event('blur')));
    h.frames(2);
    const released = client.input.get(client.input.newestTick!)!.move;
    expect([released.x, released.y]).toEqual([0, 0]);
  });

  it('pauses the client while the page is hidden (pauseWhenHidden default)', async () => {
    function App() {
      rn.useInput(() => {});
      return null;
    }
    const { h, client } = await setup(App);
    act(() => setVisibility('hidden'));
    expect(client.isPaused).toBe(true);
    h.frames(4);
    act(() => setVisibility('visible'));
    expect(client.isPaused).toBe(false);
  });

  it('with pauseWhenHidden off, a hidden page skips the sampler and sends a neutral input', async () => {
    let calls = 0;
    function App() {
      rn.useInput((input) => {
        calls++;
        input.move.x = 1;
      });
      return null;
    }
    const { h, client, server } = await setup(App, { pauseWhenHidden: false });
    h.frames(16);
    expect(calls).toBeGreaterThan(0);
    act(() => setVisibility('hidden'));
    expect(client.isPaused).toBe(false);
    const before = { calls, tick: client.input.newestTick! };
    h.frames(32); // 500 ms ≈ 30 ticks
    expect(calls).toBe(before.calls);
    const hiddenTick = client.input.newestTick!;
    expect(hiddenTick - before.tick).toBeGreaterThan(20); // still predicting and sending
    expect(client.input.get(hiddenTick)!.move.x).toBe(0); // neutral
    const x = server().components.position.x;
    h.frames(32);
    expect(server().components.position.x).toBe(x); // the server runs neutral inputs: the runner stopped
  });

  it('hold to repeat: repeatEveryTicks presses again every n ticks while a key or pointer button is held, counted on the tick clock', async () => {
    const bindings = [rn.pressOnPointer('jump', { button: 2, repeatEveryTicks: 10 }), rn.pressOnKey('KeyJ', 'jump', { repeatEveryTicks: 6 })];
    function App() {
      rn.useInput(bindings);
      return null;
    }
    const { h, client, server } = await setup(App);
    const pointer = (type: string, button: number) => act(() => void window.dispatchEvent(new MouseEvent(type, { button })));
    // Pointer: 1 press at the down, then one per 10 predicted ticks while held; the primary button does nothing.
    pointer('pointerdown', 0);
    pointer('pointerdown', 2);
    const from = client.input.newestTick!;
    h.frames(64); // ≈ 1 s ≈ 60 ticks
    pointer('pointerup', 2);
    const held = client.input.newestTick! - from;
    h.frames(64); // released: no more presses
    const expectedPointer = 1 + Math.floor(held / 10);
    h.frames(30);
    expect(server().components.jumps).toBe(expectedPointer);
    // Key: auto-repeat keydowns add nothing; one press at the down, then one per 6 ticks.
    key('keydown', 'KeyJ');
    const keyFrom = client.input.newestTick!;
    for (let i = 0; i < 8; i++) {
      key('keydown', 'KeyJ', true);
      h.frames(4);
    }
    key('keyup', 'KeyJ');
    const keyHeld = client.input.newestTick! - keyFrom;
    h.frames(60);
    expect(server().components.jumps).toBe(expectedPointer + 1 + Math.floor(keyHeld / 6));
    expect(held).toBeGreaterThan(50);
    expect(() => rn.pressOnKey('KeyJ', 'jump', { repeatEveryTicks: 0 })).toThrow(/react-netcode: pressOnKey\(KeyJ, jump\) got repeatEveryTicks 0/);
  });
});
