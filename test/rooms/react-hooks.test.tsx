// @vitest-environment jsdom
// useMatchmaker and useLobby against the room server's in-process matchmaker (the same
// Matchmaker interface the HTTP client implements): quick play and join by code give seats,
// errors are the matchmaker's messages, and the lobby re-renders as rooms fill.
import { act, cleanup, render, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { MatchmakerProvider, useLobby, useMatchmaker, type LobbyState, type MatchmakerState } from '../../src/react/index.ts';
import { defineRoom } from '../../src/rooms/index.ts';
import { arena } from '../helpers/arena.ts';
import { RoomHarness } from './harness.ts';

afterEach(cleanup);

describe('matchmaking hooks', () => {
  it('useMatchmaker quick-plays, creates a private room, joins by code, and reports errors; useLobby follows the counts', async () => {
    const h = new RoomHarness({ rooms: [defineRoom('arena', { protocol: arena, maxClients: 2 })] });
    let mm: MatchmakerState | undefined;
    let lobby: LobbyState | undefined;
    function Probe() {
      mm = useMatchmaker();
      lobby = useLobby('arena');
      return null;
    }
    render(
      <MatchmakerProvider matchmaker={h.server.matchmaker}>
        <Probe />
      </MatchmakerProvider>,
    );
    await waitFor(() => expect(lobby!.loaded).toBe(true));
    expect(lobby!.rooms).toEqual([]);
    let seat: Awaited<ReturnType<MatchmakerState['joinOrCreate']>>;
    await act(async () => {
      seat = await mm!.joinOrCreate('arena');
    });
    expect(mm!.seat).toEqual(seat!);
    await waitFor(() => expect(lobby!.rooms.map((r) => r.clients)).toEqual([1]));
    await act(async () => {
      await mm!.join(seat!.roomId);
    });
    await waitFor(() => expect(lobby!.rooms.map((r) => r.clients)).toEqual([2]));
    await act(async () => {
      await mm!.join(seat!.roomId);
    });
    expect(mm!.error).toMatch(/^react-netcode: room .* is full; join another room or call joinOrCreate\.$/);
    let priv: Awaited<ReturnType<MatchmakerState['create']>>;
    await act(async () => {
      priv = await mm!.create('arena', { private: true });
    });
    await act(async () => {
      await mm!.joinByCode(priv!.code!);
    });
    expect(mm!.seat!.roomId).toBe(priv!.roomId);
    expect(mm!.error).toBeUndefined();
    expect(lobby!.rooms.length).toBe(1); // the private room is not listed
  });

  it('useMatchmaker outside a provider says what to do', () => {
    function Bare() {
      useMatchmaker();
      return null;
    }
    expect(() => render(<Bare />)).toThrow('react-netcode: useMatchmaker/useLobby need a <MatchmakerProvider matchmaker={createMatchmakerClient(url)}> above them.');
  });
});
