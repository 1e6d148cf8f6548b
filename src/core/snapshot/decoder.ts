// Client side of snapshots: check the CRC, parse every record into scratch rows against the baselines it
// names, and only when the whole message is valid commit it and advance the ack. A bad message throws
// WireError and changes nothing.

import { BitReader } from '../bits.ts';
import { WireError } from '../errors.ts';
import type { Protocol } from '../protocol.ts';
import { isNewer, type Tick } from '../clock/tick.ts';
import { MessageKind, SNAPSHOT_PREFIX_BYTES } from '../wire.ts';
import { crc16, readCode } from './codes.ts';
import { corrupt, readBody } from './body.ts';
import { shiftAckMask } from './format.ts';
import { compileLayouts, materialize, type TypeLayout } from './layout.ts';
import { ClientGhost, ParseScratch, R_NEW, R_REPLACE, R_RESPAWN, R_UPDATE } from './client-state.ts';

export interface DecodedSpawn {
  id: number;
  typeId: number;
  owner: number;
  /** The server tick the ghost was spawned at. */
  spawnTick: Tick;
  values: Record<string, unknown>;
}

export interface DecodedUpdate {
  id: number;
  values: Record<string, unknown>;
}

export interface DecodedInput {
  networkId: number;
  values: Record<string, unknown>;
}

/** One decoded snapshot (the ghosts not listed are untouched); reused by the next `decode`, `values` by later ones. */
export interface DecodedSnapshot {
  tick: Tick;
  /** New ghosts (a spawn of an id the client already has, same type and owner, is an update). */
  spawns: DecodedSpawn[];
  updates: DecodedUpdate[];
  /** Ids of ghosts removed (only ones the client had). */
  despawns: number[];
  inputs: DecodedInput[];
}

export class SnapshotDecoder {
  private readonly layouts: readonly TypeLayout[];
  private readonly ghosts = new Map<number, ClientGhost>();
  private readonly r = new BitReader();
  private readonly s = new ParseScratch();
  private readonly out: DecodedSnapshot = { tick: 0, spawns: [], updates: [], despawns: [], inputs: [] };
  private readonly spawnPool: DecodedSpawn[] = [];
  private readonly updatePool: DecodedUpdate[] = [];
  private inputs: DecodedInput[] = [];
  private spareInputs: DecodedInput[] = [];
  private newest: Tick = 0;
  private mask = 0;
  private has = false;

  constructor(private readonly protocol: Protocol, private readonly localNetworkId: number) {
    this.layouts = compileLayouts(protocol);
  }

  /** True once a snapshot was decoded: send no SnapshotAck before. */
  get hasAck(): boolean {
    return this.has;
  }

  /** Newest decoded snapshot tick. */
  get ackTick(): Tick {
    return this.newest;
  }

  /** Bit i set: snapshot tick ackTick − 1 − i was decoded too. */
  get ackMask(): number {
    return this.mask;
  }

  /** Number of ghosts the client has. */
  get ghostCount(): number {
    return this.ghosts.size;
  }

  /** Forget every ghost and ack (reconnect): the server must start a new connection state too. */
  reset(): void {
    this.ghosts.clear();
    this.has = false;
    this.newest = 0;
    this.mask = 0;
  }

  /** Decode a Snapshot (from its kind byte); null for one not newer than the newest decoded. Throws WireError, changing nothing. */
  decode(data: Uint8Array): DecodedSnapshot | null {
    if (data.byteLength < SNAPSHOT_PREFIX_BYTES + 5) throw new WireError('wire/end-of-data', `react-netcode: snapshot of ${data.byteLength} bytes is truncated; drop it.`);
    if (data[0] !== MessageKind.Snapshot) throw new WireError('wire/unknown-message', `react-netcode: message kind ${data[0]} is not a Snapshot (${MessageKind.Snapshot}); route it by its first byte.`);
    if (crc16(data, SNAPSHOT_PREFIX_BYTES, data.byteLength) !== (data[1]! | (data[2]! << 8))) throw corrupt('checksum mismatch (truncated or damaged)', 8);
    const r = this.r.reset(data);
    r.readBits(24);
    const tick = r.readBits(32);
    if (this.has && !isNewer(tick, this.newest)) return null;
    this.parse(tick);
    this.commit(tick);
    return this.out;
  }

  private parse(tick: Tick): void {
    const r = this.r;
    const s = this.s;
    const nd = readCode(r);
    if (nd > r.remainingBits) throw corrupt(`despawn count ${nd} is too large`, r.bitPosition);
    s.reserveDespawns(nd);
    for (let j = 0, prev = -1; j < nd; j++) {
      const id = prev + 1 + readCode(r);
      if (id > 0xffff_ffff) throw corrupt('despawn id above 2^32-1', r.bitPosition);
      s.despawn[j] = prev = id;
    }
    s.nd = nd;
    const nr = readCode(r);
    if (nr * 4 > r.remainingBits) throw corrupt(`record count ${nr} is too large`, r.bitPosition);
    s.reserveRecords(nr);
    s.used = 0;
    s.usedStrs = 0;
    let prev = -1;
    let dj = 0; // despawns ascend like the records: the first one not below the record's id
    let p0 = -1;
    let p1 = 0;
    for (let k = 0; k < nr; k++) {
      const pos = r.bitPosition;
      const id = prev + 1 + readCode(r);
      if (id > 0xffff_ffff) throw corrupt('ghost id above 2^32-1', pos);
      prev = id;
      let g = this.ghosts.get(id);
      while (dj < nd && s.despawn[dj]! < id) dj++;
      if (g !== undefined && dj < nd && s.despawn[dj] === id) g = undefined;
      let layout: TypeLayout;
      let view;
      let s0 = -1, s1 = -1;
      if (r.readBits(1) === 1) {
        const typeId = readCode(r);
        const owner = readCode(r);
        s.spawnAge[k] = readCode(r);
        const l = this.layouts[typeId];
        if (l === undefined) throw corrupt(`ghost type ${typeId} is unknown`, pos);
        layout = l;
        view = layout.views[owner === this.localNetworkId ? 0 : 1];
        s.kind[k] = g === undefined ? R_NEW : g.layout === layout && g.owner === owner ? R_RESPAWN : R_REPLACE;
        s.type[k] = typeId;
        s.owner[k] = owner;
      } else {
        if (g === undefined) throw corrupt(`update of ghost ${id}, which the client does not have`, pos);
        layout = g.layout;
        view = g.view;
        s.kind[k] = R_UPDATE;
        if (r.readBits(1) === 1) {
          if (p0 < 0) throw corrupt('first update record reuses missing baselines', pos);
        } else {
          p0 = readCode(r);
          p1 = p0 === 0 ? 0 : readCode(r);
        }
        // The rows it names: received at tick − p0 and (prediction) p1 before that.
        if (p0 !== 0) s0 = g.find((tick - p0) >>> 0);
        if (p0 !== 0 && p1 !== 0) s1 = g.find((tick - p0 - p1) >>> 0);
        if (s0 < 0 && p0 !== 0) throw corrupt(`baseline tick ${(tick - p0) >>> 0} of ghost ${id} is not one the client kept`, pos);
        if (s1 < 0 && p1 !== 0) throw corrupt(`baseline tick ${(tick - p0 - p1) >>> 0} of ghost ${id} is not one the client kept`, pos);
      }
      const off = s.allocRow(layout.slotCount);
      const so = s.allocStrs(layout.stringCount);
      s.id[k] = id;
      s.ghost[k] = g;
      s.off[k] = off;
      s.so[k] = so;
      readBody(r, view, layout, s.rows, off, s.strs, so, g?.rows ?? layout.defaultRow, g?.strs ?? layout.defaultStrings, s0, s1, p0, p1);
    }
    s.nr = nr;
    this.parseInputs();
    r.expectEnd();
  }

  private parseInputs(): void {
    const r = this.r;
    const spare = this.spareInputs;
    this.s.ni = 0;
    if (r.readBits(1) === 0) return;
    const n = readCode(r);
    if (n > r.remainingBits) throw corrupt(`input count ${n} is too large`, r.bitPosition);
    for (let i = 0; i < n; i++) {
      const networkId = readCode(r);
      const entry = (spare[i] ??= { networkId: 0, values: this.protocol.input.defaults() as Record<string, unknown> });
      entry.networkId = networkId;
      this.protocol.input.readInto(r, entry.values);
    }
    this.s.ni = n;
  }

  private commit(tick: Tick): void {
    const s = this.s;
    const out = this.out;
    out.tick = tick;
    // Written by index and cut to length at the end: `length = 0` would drop the arrays' storage every snapshot.
    let nd = 0, ns = 0, nu = 0;
    for (let j = 0; j < s.nd; j++) {
      const id = s.despawn[j]!;
      if (this.ghosts.delete(id)) out.despawns[nd++] = id;
    }
    for (let k = 0; k < s.nr; k++) {
      const id = s.id[k]!;
      let g = s.ghost[k];
      const kind = s.kind[k]!;
      if (kind === R_REPLACE) {
        this.ghosts.delete(id);
        out.despawns[nd++] = id;
      }
      if (kind === R_NEW || kind === R_REPLACE || g === undefined) {
        g = new ClientGhost(id, this.layouts[s.type[k]!]!, s.owner[k]!, this.localNetworkId);
        this.ghosts.set(id, g);
        const e = (this.spawnPool[ns] ??= { id: 0, typeId: 0, owner: 0, spawnTick: 0, values: g.values });
        e.spawnTick = (tick - s.spawnAge[k]!) >>> 0;
        e.id = id;
        e.typeId = g.layout.typeId;
        e.owner = g.owner;
        e.values = g.values;
        out.spawns[ns++] = e;
      } else {
        const e = (this.updatePool[nu] ??= { id: 0, values: g.values });
        e.id = id;
        e.values = g.values;
        out.updates[nu++] = e;
      }
      const slot = g.append(tick, s.rows, s.off[k]!, s.strs, s.so[k]!);
      materialize(g.view, g.rows, slot * g.layout.slotCount, g.strs, slot * g.layout.stringCount, g.values);
    }
    const inputs = this.spareInputs;
    this.spareInputs = this.inputs;
    this.inputs = inputs;
    out.despawns.length = nd;
    out.spawns.length = ns;
    out.updates.length = nu;
    for (let i = 0; i < s.ni; i++) out.inputs[i] = inputs[i]!;
    out.inputs.length = s.ni;
    this.mask = this.has ? shiftAckMask(this.mask, (tick - this.newest) | 0) : 0;
    this.newest = tick;
    this.has = true;
  }
}
