// Regression (issue 16): one crafted Input from a joined client wedged the server. Its
// move.x (vec2, quantize 100) carried the zigzag varint of −2^31, which decodes to
// −21474836.48; the raw value was copied into the player's replicated last input and
// encoding the next snapshot threw a WireError out of tick() before currentTick
// advanced, so every later tick threw again.

import { describe, expect, it } from 'vitest';
import { BitWriter } from '../../src/core/bits.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createStepper } from '../../src/testing/index.ts';
import { joinedRawPeer } from '../helpers/raw-peer.ts';
import { runnerProtocol, runnerSystems } from '../helpers/runner.ts';

/** An Input packet for one tick whose move.x is the varuint 2^32 − 1 (zigzag −2^31). */
function poisonedInput(tick: number): Uint8Array {
  const w = new BitWriter();
  w.writeBits(MessageKind.Input, 8);
  w.writeBits(tick >>> 0, 32); // newest tick
  w.writeBits(1, 8); // one input
  w.writeVarUint(0xffff_ffff); // move.x: zigzag(−2^31) → −2147483648 / 100
  w.writeVarUint(0); // move.y
  w.writeVarUint(0); // jump count
  w.writeBits(0, 32); // interpolation tick
  w.writeBits(0, 16); // interpolation fraction
  w.writeBits(0, 32); // ack tick
  w.writeBits(0, 32); // ack mask
  return w.toBytes();
}

describe('the move.x = −2^31 input (issue 16)', () => {
  it('neither escapes tick() nor reaches replicated state; the tick advances and other players keep playing', () => {
    const s = createStepper({ protocol: runnerProtocol, systems: runnerSystems, clients: 1, log: () => {} });
    s.server.events.on('join', (c) => s.server.spawn('runner', {}, { owner: c.networkId }));
    s.joinAll({ name: 'p' });
    const { peer: attacker, connection } = joinedRawPeer(s, runnerProtocol, { name: 'x' });
    expect(attacker.kinds.slice(0, 2)).toEqual([MessageKind.Welcome, MessageKind.Joined]); // then snapshots
    s.advance(1000);
    const player = s.clients[0]!.client;
    const snapshotsBefore = player.ghosts.timeline.newestSnapshotTick!;
    const tickBefore = s.server.currentTick;
    attacker.send(poisonedInput(tickBefore + 3), 'unreliable');
    s.tick(60); // before the fix: WireError "cannot quantize -21474836.48 × 100 into an int32" out of update()
    expect(s.server.currentTick - tickBefore).toBe(60); // 60 ticks of 1000/60 ms, each advancing by one
    // The input was sanitized where it was decoded: the non-encodable x became the default 0.
    expect(s.server.inputStats(connection)!.clamped).toBe(1);
    // The other player still receives snapshots: 60 ticks at 20 snapshots/s = 20 more, 3 ticks apart.
    expect(player.ghosts.timeline.newestSnapshotTick! - snapshotsBefore).toBe(60);
    expect(player.status).toBe('in-game');
    expect(attacker.closed()).toBeUndefined();
  });
});
