// Resume tokens must be unpredictable: a client that knows a suspended connection's
// networkId and token takes it over. The public createServer draws them from Web Crypto;
// a bare NetServer (tests, the Stepper) from the seeded RNG, deterministically.
import { describe, expect, it } from 'vitest';
import { createServer as createPublicServer, defineProtocol, field } from '../../src/index.ts';
import { NetServer, type ServerOptions } from '../../src/core/server.ts';
import type { Protocol } from '../../src/core/protocol.ts';
import { LoopbackNetwork } from '../../src/transport/loopback.ts';
import { rawPeer } from '../helpers/raw-peer.ts';

const protocol = defineProtocol({ join: { name: field.string(8) } });

const createBareServer = <P extends Protocol>(options: ServerOptions<P>) => new NetServer(options);

function tokensOf(create: typeof createBareServer, seed: number): number[] {
  const network = new LoopbackNetwork();
  const server = create({ protocol, transport: network.server, seed, log: () => {} }).listen();
  const peers = [rawPeer(network), rawPeer(network), rawPeer(network)];
  network.deliver();
  server.tick();
  for (const p of peers) p.hello(protocol);
  network.deliver();
  server.tick();
  network.deliver();
  return peers.map((p) => p.welcomes[0]!.resumeToken);
}

describe('resume tokens', () => {
  it('the public createServer: two servers with the same seed hand out different tokens', () => {
    const a = tokensOf(createPublicServer, 7);
    const b = tokensOf(createPublicServer, 7);
    expect(a).toHaveLength(3);
    expect(a).not.toEqual(b); // equal only with probability 2^-96
  });

  it('a bare NetServer (tests): the seeded RNG, the same tokens for the same seed', () => {
    expect(tokensOf(createBareServer, 7)).toEqual(tokensOf(createBareServer, 7));
  });
});
