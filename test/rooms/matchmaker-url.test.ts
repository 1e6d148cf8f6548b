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
