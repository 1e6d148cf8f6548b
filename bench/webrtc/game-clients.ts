// Headless game clients for the WebRTC tests and bench, in their own process (inside the
// network namespace): N NetClients playing the load game over socket.io, wrapped in the
// WebRTC client transport (node-datachannel's RTCPeerConnection) when mode is 'webrtc'.
// `block: true` strips every ICE candidate from the server's answer: the data channel can
// never open (the fallback). Measures per client: which path carried the unreliable
// channel, when it switched, snapshots received and their delay — arrival minus the tick's
// place on the server's fixed-step schedule, less the smallest such value seen (so 0 =
// the fastest snapshot) — and RTT. Config: env RNC_CLIENTS (JSON); prints {result}.
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import * as core from '../../src/index.ts';
import { BitReader } from '../../src/core/bit-reader.ts';
import { forEachMessage } from '../../src/core/outbox.ts';
import { MessageKind } from '../../src/core/wire.ts';
import { createSocketIoClientTransport } from '../../src/socket-io/index.ts';
import { createWebRtcClientTransport, type PeerConnectionConstructor } from '../../src/webrtc/index.ts';
import { InputScript, makeGame } from '../load/game.ts';
import { snapshotTick } from '../load/wire.ts';

export interface GameClientsConfig {
  url: string;
  clients: number;
  fps: number;
  seconds: number;
  mode: 'webrtc' | 'socket.io';
  block?: boolean;
  openTimeoutMs?: number;
}

export interface ClientResult {
  path: string;
  fallbackReason: string | undefined;
  webrtcAfterMs: number | undefined;
  fallbackAfterMs: number | undefined;
  snapshots: number;
  snapshotDelays: number[];
  rttMs: number;
  /** Round trips of every Ping answered after the warm-up (client time echoed by the Pong), ms. */
  rtts: number[];
  jumpsServer: number;
  presses: number;
}

const noCandidates = (sdp: string | undefined): string => (sdp ?? '').replace(/^a=candidate:.*\r?\n/gm, '');

/** An RTCPeerConnection whose candidates never reach the other side, nor theirs it: ICE has nothing to try, no packet is sent. */
class BlockedPeerConnection extends RTCPeerConnection {
  override get localDescription(): RTCSessionDescription {
    const d = super.localDescription;
    return (d === null ? null : { type: d.type, sdp: noCandidates(d.sdp) }) as unknown as RTCSessionDescription;
  }
  override setRemoteDescription(d: RTCSessionDescriptionInit): Promise<void> {
    return super.setRemoteDescription({ type: d.type, sdp: noCandidates(d.sdp) });
  }
}

const config = JSON.parse(process.env.RNC_CLIENTS ?? '{}') as GameClientsConfig;
const { protocol, systems } = makeGame(core);
const stepMs = 1000 / protocol.tickRate;
const wall = (): number => performance.timeOrigin + performance.now();

function player(i: number) {
  const arrivals: { tick: number; at: number }[] = [];
  const rtts: number[] = [];
  const onPart = (m: Uint8Array): void => {
    const t = snapshotTick(m);
    if (t !== undefined) arrivals.push({ tick: t, at: wall() });
    else if (m[0] === MessageKind.Pong && performance.now() - started > 1500) {
      const r = new BitReader(m);
      r.readBits(8);
      rtts.push(((Math.round(performance.now()) >>> 0) - r.readBits(32)) >>> 0);
    }
  };
  const base = createSocketIoClientTransport(config.url, { retry: false });
  const rtc = config.mode === 'webrtc'
    ? createWebRtcClientTransport(base, {
      RTCPeerConnection: (config.block ? BlockedPeerConnection : RTCPeerConnection) as unknown as PeerConnectionConstructor,
      ...(config.openTimeoutMs !== undefined ? { openTimeoutMs: config.openTimeoutMs } : {}),
    })
    : base;
  const transport: core.ClientTransport = {
    get stats() { return rtc.stats; },
    connect: (h) => rtc.connect({
      ...h,
      onMessage: (data, channel) => {
        if (channel === 'unreliable') forEachMessage(data, onPart);
        h.onMessage(data, channel);
      },
    }),
    send: (d, c) => rtc.send(d, c),
    close: (r) => rtc.close(r),
  };
  const client = core.createClient({ protocol, systems, transport, now: () => performance.now(), log: () => {} });
  const script = new InputScript(100 + i);
  return { client, script, arrivals, rtts, rtc, joined: false };
}

/** After the run: frames go on this long with the scripts idle, so the server runs the last press and its snapshot arrives. */
const SETTLE_MS = 1000;
const started = performance.now();
let settling = false;
const players = Array.from({ length: config.clients }, (_, i) => player(i));
for (const p of players) p.client.connect();
const frame = setInterval(() => {
  const now = performance.now();
  for (const p of players) {
    const c = p.client;
    if (c.status === 'connected' && !p.joined) {
      p.joined = true;
      c.join({ name: 'p' });
    }
    p.script.active = c.status === 'in-game' && !settling;
    p.script.apply(now, c.input);
    c.update(now);
  }
}, 1000 / config.fps);

await new Promise((r) => setTimeout(r, config.seconds * 1000));
settling = true;
const endedAt = performance.timeOrigin + performance.now();
await new Promise((r) => setTimeout(r, SETTLE_MS));
clearInterval(frame);
const results: ClientResult[] = players.map((p) => {
  // After join and the switch, until the scripts went idle.
  const half = p.arrivals.filter((a) => a.at >= performance.timeOrigin + started + 1500 && a.at < endedAt);
  const offsets = half.map((a) => a.at - a.tick * stepMs);
  const min = Math.min(...offsets);
  const own = [...p.client.world.query('player')].find((g) => g.owner === p.client.networkId);
  return {
    path: p.rtc.stats?.unreliablePath ?? 'socket.io',
    fallbackReason: p.rtc.stats?.fallbackReason,
    webrtcAfterMs: p.rtc.stats?.unreliablePath === 'webrtc' ? p.rtc.stats.unreliableSetupMs : undefined,
    fallbackAfterMs: p.rtc.stats?.unreliablePath === 'socket.io' ? p.rtc.stats?.unreliableSetupMs : undefined,
    snapshots: half.length,
    snapshotDelays: offsets.map((o) => o - min),
    rttMs: p.client.clock.rttMs,
    rtts: p.rtts,
    jumpsServer: own?.components.jumps ?? -1,
    presses: p.script.presses,
  };
});
console.log(JSON.stringify({ result: results }));
await new Promise((r) => setTimeout(r, 1000)); // the server reports its paths meanwhile
for (const p of players) p.client.leave();
setTimeout(() => process.exit(0), 300);
