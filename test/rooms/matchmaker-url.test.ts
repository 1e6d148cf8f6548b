// createMatchmakerClient's URL: a relative one ('/matchmake', as docs/rooms.md writes it) is
// resolved against the page's address in a browser; outside a page it is a usage error that
// says to pass a full URL (it used to fail inside the first request with "Invalid URL").

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMatchmakerClient } from '../../src/rooms/index.ts';

afterEach(() => vi.unstubAllGlobals());

/** A fetch that answers every request with one seat (no url of its own) and records the URLs asked for. */
function fakeFetch(asked: string[]): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    asked.push(String(input));
    return new Response(JSON.stringify({ roomId: 'r1', type: 'duel', token: 't', reservationId: 'x', seatLapseMs: 15000 }), { status: 200 });
  }) as typeof fetch;
}

describe('createMatchmakerClient URL', () => {
  it("resolves '/matchmake' against the page's address; the seat's url is the page's origin", async () => {
    vi.stubGlobal('location', { href: 'https://game.example/play/index.html?room=AB' });
    const asked: string[] = [];
    const seat = await createMatchmakerClient('/matchmake', { fetch: fakeFetch(asked) }).joinOrCreate('duel');
    expect(asked[0]).toBe('https://game.example/matchmake/joinOrCreate');
    expect(seat.url).toBe('https://game.example');
  });

  it('keeps a full URL as it is, trailing slash dropped', async () => {
    const asked: string[] = [];
    await createMatchmakerClient('http://127.0.0.1:3000/matchmake/', { fetch: fakeFetch(asked) }).joinOrCreate('duel');
    expect(asked[0]).toBe('http://127.0.0.1:3000/matchmake/joinOrCreate');
  });

  it('outside a page, a relative URL is a usage error naming a full one', () => {
    expect(() => createMatchmakerClient('/matchmake', { fetch: fakeFetch([]) })).toThrow(
      "react-netcode: createMatchmakerClient(\"/matchmake\") is not a URL (outside a page a relative URL has no base); pass a full one, e.g. 'http://localhost:3000/matchmake'.",
    );
  });
});

describe('createMatchmakerClient errors', () => {
  it('a URL that is no matchmaker (a 404 without a matchmaking reply) says to check the URL', async () => {
    const notFound = (async () => new Response('Not Found', { status: 404 })) as typeof fetch;
    await expect(createMatchmakerClient('http://127.0.0.1:3000', { fetch: notFound }).joinOrCreate('duel')).rejects.toThrow(
      "react-netcode: http://127.0.0.1:3000/joinOrCreate answered HTTP 404, not a matchmaking reply; is http://127.0.0.1:3000 the matchmaker's URL? (serveRooms serves it under /matchmake, e.g. http://host:port/matchmake)",
    );
  });

  it('a server that stays unavailable: its words once, the attempts, and one piece of advice', async () => {
    let calls = 0;
    const down = (async () => {
      calls++;
      const message = 'react-netcode: matchmaking failed on the server (Redis at 127.0.0.1:6391 is unreachable (reconnecting)); retry with the same requestId.';
      return new Response(JSON.stringify({ reason: 'unavailable', message }), { status: 503 });
    }) as typeof fetch;
    const error = await createMatchmakerClient('http://127.0.0.1:3000/matchmake', { fetch: down, retryDelayMs: 1 }).joinOrCreate('duel').catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((error as { reason: string }).reason).toBe('unavailable');
    expect((error as Error).message).toBe(
      'react-netcode: the matchmaker is unavailable (http://127.0.0.1:3000/matchmake/joinOrCreate, 3 attempts: HTTP 503: matchmaking failed on the server ' +
        '(Redis at 127.0.0.1:6391 is unreachable (reconnecting))); try again in a moment (pass the same requestId to each try of one request, so it never gets two seats).',
    );
  });
});
