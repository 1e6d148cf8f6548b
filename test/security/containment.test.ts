// Containment (issue 16): nothing a system, an app callback or a ghost's value raises
// escapes a server tick or a client frame. The tick always advances, the failure is
// reported (the `error` event, a rate-limited log line) and everyone else plays on.

import { describe, expect, it } from 'vitest';
import { createServer, defineProtocol, defineSystems, field, ghost, system, VirtualScheduler, type NetcodeError } from '../../src/index.ts';
import { SystemError } from '../../src/core/system.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { createStepper } from '../../src/testing/index.ts';

const protocol = defineProtocol({
  ghosts: { box: ghost({ x: field.f32({ quantize: 100 }), hp: field.u8() }) },
  input: { move: field.f32({ quantize: 100 }) },
  join: { name: field.string(16) },
});

type Failure = { error: NetcodeError; networkId: number | undefined };

function world(systems: ReturnType<typeof defineSystems<typeof protocol>>, server: object = {}) {
  const logs: string[] = [];
  const s = createStepper({ protocol, systems, clients: 2, log: (_l, m) => logs.push(m), server });
  const failures: Failure[] = [];
  s.server.events.on('error', (error, c) => failures.push({ error, networkId: c?.networkId }));
  s.server.events.on('join', (c) => s.server.spawn('box', { x: 1, hp: 100 }, { owner: c.networkId }));
  s.joinAll({ name: 'p' });
  return { s, logs, failures };
}

describe('server containment', () => {
  it('a system that throws is skipped for that tick and reported with its name and tick; the others run and the tick advances', () => {
    let after = 0;
    const systems = defineSystems(protocol, [
      system.server('flaky', (_w, ctx) => {
        if (ctx.tick % 2 === 0) throw new Error('boom');
      }),
      system.server('after', () => void after++),
    ]);
    const { s, logs, failures } = world(systems);
    failures.length = 0;
    const before = { tick: s.server.currentTick, after };
    s.tick(60);
    expect(s.server.currentTick - before.tick).toBe(60);
    expect(after - before.after).toBe(60); // the next system ran on every one of the 60 ticks
    expect(failures).toHaveLength(30); // every even tick of 60
    const first = failures[0]!.error as SystemError;
    expect(first).toBeInstanceOf(SystemError);
    expect([first.system, first.tick % 2, first.code]).toEqual(['flaky', 0, 'handler']);
    expect(first.message).toBe(`react-netcode: system "flaky" threw at tick ${first.tick}: boom; fix the system (error.cause holds what it threw, with the stack).`);
    // Logged at most 5 times per 10 s window, then summarized.
    expect(logs.filter((m) => m.includes('system "flaky" threw')).length).toBeLessThanOrEqual(5 + 5);
    expect(s.clients.every((c) => c.client.status === 'in-game')).toBe(true);
  });

  it('a ghost value its field cannot send is reset to the default and reported; snapshots go on', () => {
    let poison = false;
    const systems = defineSystems(protocol, [
      system.server('poison', (world) => {
        if (!poison) return;
        poison = false;
        for (const b of world.query('box')) if (b.owner === 1) b.components.x = NaN;
      }),
    ]);
    const { s, failures } = world(systems);
    failures.length = 0;
    const client = s.clients[1]!.client;
    const newest = () => client.ghosts.timeline.newestSnapshotTick!;
    const before = newest();
    poison = true;
    s.tick(30);
    expect(failures.map((f) => f.error.message)).toEqual([
      expect.stringMatching(/^react-netcode: the snapshot of tick \d+ for networkId 1 failed to encode: ghost \d+ \(box\) field "x" must be a finite number .*, got NaN.* Every connection's snapshots restart from fresh baselines\.$/),
      expect.stringMatching(/^react-netcode: ghost \d+ \(box\) field "x" must be a finite number whose quantized value fits an int32, got NaN at tick \d+; a system wrote a value the field cannot send\. It was reset to the field's default\.$/),
    ]);
    const box = [...s.server.world.query('box')].find((b) => b.owner === 1)!;
    expect(box.components.x).toBe(0); // the default
    // Both clients keep receiving snapshots: 30 ticks = 10 snapshot intervals, one of them skipped for one connection at most.
    expect(tickGap(newest(), before)).toBeGreaterThanOrEqual(27);
    const onClient = [...client.world.query('box')].find((b) => b.owner === 1)!;
    s.tick(6);
    expect(client.ghosts.record(onClient.id)!.history.get(client.ghosts.record(onClient.id)!.confirmedTick)!.x).toBe(0);
  });

  it('a throwing relevancy callback costs that connection its snapshot, reported; the other still gets its own', () => {
    const { s, failures } = world(defineSystems(protocol, []), {
      relevancy: (c: { networkId: number }) => {
        if (c.networkId === 1) throw new Error('no view');
        return true;
      },
    });
    failures.length = 0;
    const [a, b] = s.clients.map((c) => c.client);
    const before = [a!.ghosts.timeline.newestSnapshotTick!, b!.ghosts.timeline.newestSnapshotTick!];
    s.tick(30);
    expect(failures.length).toBeGreaterThanOrEqual(9); // one per snapshot tick (10 in 30 ticks at 20/s)
    expect(failures[0]!.error.message).toMatch(/^react-netcode: relevancy or importance threw at tick \d+: no view; fix that callback/);
    expect(failures[0]!.networkId).toBe(1);
    expect(a!.ghosts.timeline.newestSnapshotTick).toBe(before[0]);
    expect(tickGap(b!.ghosts.timeline.newestSnapshotTick!, before[1]!)).toBeGreaterThanOrEqual(27);
  });

  it('an onJoin that throws refuses that join with a reason and reports a HandlerError', () => {
    let down = false;
    const { s, failures } = world(defineSystems(protocol, []), {
      onJoin: () => {
        if (down) throw new Error('db down');
        return true;
      },
    });
    const late = s.addClient();
    down = true;
    s.until(() => late.client.status === 'connected');
    late.client.join({ name: 'q' });
    s.until(() => late.client.status !== 'joining');
    expect(late.client.state.joinError).toBe('join failed on the server');
    expect(failures.map((f) => f.error.message)).toEqual([expect.stringMatching(/^react-netcode: onJoin threw at tick \d+: db down; fix that callback/)]);
  });

  it('start(): the loop keeps running and every tick advances while a system throws on each one', () => {
    const scheduler = new VirtualScheduler();
    const systems = defineSystems(protocol, [system.server('always', () => { throw new Error('x'); })]);
    const server = createServer({ protocol, systems, transport: new LoopbackNetwork().server, scheduler, log: () => {} });
    let errors = 0;
    server.events.on('error', () => void errors++);
    server.start();
    scheduler.advanceTo(1000);
    // 1000 ms at 60 Hz = 60 ticks (the first runs at 0 ms, so 0..59 ran and 60 is due at 1000).
    expect(server.currentTick).toBeGreaterThanOrEqual(60);
    expect(errors).toBe(server.currentTick);
    server.stop();
  });
});

describe('client containment', () => {
  it('a presentation system that throws is skipped and reported; the frame loop and the other systems go on', () => {
    let shown = 0;
    const systems = defineSystems(protocol, [
      system.client('fx', () => {
        throw new Error('no canvas');
      }),
      system.client('hud', (_w, ctx) => void (ctx.localNetworkId === 1 && shown++)), // client 0 has networkId 1
    ]);
    const { s } = world(systems);
    const client = s.clients[0]!.client;
    const errors: NetcodeError[] = [];
    client.events.on('error', (e) => errors.push(e));
    const frames = s.clients[0]!.frames;
    const before = shown;
    s.tick(30); // update() must not throw
    const ran = s.clients[0]!.frames - frames;
    expect(ran).toBe(30);
    expect(shown - before).toBe(ran); // hud ran every frame
    expect(errors.length).toBe(ran);
    expect(errors[0]).toBeInstanceOf(SystemError);
    expect((errors[0] as SystemError).system).toBe('fx');
    expect(client.status).toBe('in-game');
  });

  it('a snapshot whose decoding throws anything is dropped and reported, not thrown out of update()', () => {
    const { s } = world(defineSystems(protocol, []));
    const client = s.clients[0]!.client;
    const errors: NetcodeError[] = [];
    client.events.on('error', (e) => errors.push(e));
    const apply = client.ghosts.applySnapshot.bind(client.ghosts);
    let failNext = 1;
    client.ghosts.applySnapshot = (data, now) => {
      if (failNext-- > 0) throw new TypeError('cannot read properties of undefined');
      return apply(data, now);
    };
    s.tick(12);
    expect(errors.map((e) => [e.code, e.message])).toEqual([['internal', expect.stringMatching(/^react-netcode: unexpected error while decoding a snapshot: cannot read properties of undefined/)]]);
    expect(client.ghosts.rejectedSnapshots).toBe(1);
    expect(client.status).toBe('in-game');
  });
});

function tickGap(a: number, b: number): number {
  return (a - b) | 0;
}
