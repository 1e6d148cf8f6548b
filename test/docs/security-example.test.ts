// docs/security.md's authentication example must work: the same signToken /
// verifyToken and onJoin, over the loopback, driven by the Stepper.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defineProtocol, field } from '../../src/index.ts';
import { createStepper } from '../../src/testing/index.ts';

const SECRET = 'test-secret';

function signToken(playerId: string, expiresAt: number): string {
  const body = `${playerId}.${expiresAt}`;
  return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
}

function verifyToken(token: string, nowSeconds: number): string | undefined {
  const [playerId, expires, signature] = token.split('.');
  if (!playerId || !expires || !signature) return undefined;
  const expected = createHmac('sha256', SECRET).update(`${playerId}.${expires}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return Number(expires) > nowSeconds ? playerId : undefined;
}

const protocol = defineProtocol({ join: { token: field.string(256) } });
const NOW = 1_900_000_000; // seconds

describe('docs/security.md authentication example', () => {
  it('admits a signed token once, refuses forged, expired and reused ones', () => {
    const playing = new Set<string>();
    const s = createStepper({
      protocol,
      clients: 5,
      log: () => {},
      server: {
        onJoin: (connection, { token }) => {
          const playerId = verifyToken(token, NOW);
          if (playerId === undefined) return { reject: 'invalid or expired token' };
          if (playing.has(playerId)) return { reject: 'already playing' };
          playing.add(playerId);
          connection.data.playerId = playerId;
          return true;
        },
      },
    });
    s.server.events.on('leave', (connection) => playing.delete(connection.data.playerId as string));
    s.until(() => s.clients.every((c) => c.client.status === 'connected'));
    const [ann, forger, late, twin, garbage] = s.clients.map((c) => c.client);
    const good = signToken('ann', NOW + 60);
    ann!.join({ token: good });
    forger!.join({ token: good.replace(/^ann/, 'bob') }); // same signature, another player
    late!.join({ token: signToken('cid', NOW - 1) });
    s.tick(5);
    twin!.join({ token: good }); // after ann is in: the same token again
    garbage!.join({ token: 'not-a-token' });
    s.tick(5);
    expect(ann!.status).toBe('in-game');
    expect([forger, late, twin, garbage].map((c) => c!.state.joinError)).toEqual(['invalid or expired token', 'invalid or expired token', 'already playing', 'invalid or expired token']);
    expect([...s.server.connections.values()].filter((c) => c.inGame).map((c) => c.data.playerId)).toEqual(['ann']);
    ann!.leave();
    s.tick(5);
    expect(playing.size).toBe(0);
  });
});
