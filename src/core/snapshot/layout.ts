// Numeric layout of each ghost type for the snapshot codec: every replicated field
// maps to int32 slots of a row (quantized state), strings to a side table. The
// encoder quantizes ghost values into rows once per tick; the decoder turns rows
// back into values. Rows are what deltas are taken between.

import { utf8Length } from '../bits.ts';
import { NetcodeError, WireError } from '../errors.ts';
import type { Field, Quat } from '../field.ts';
import type { GhostEntry, Protocol } from '../protocol.ts';
import type { SchemaCodec, Schema } from '../schema.ts';
import { QUAT_CODES, quatCodes, quatFromCodes, quatTop } from './quat.ts';

/** Slot kinds. UINT: bounded unsigned (u8/u16); WORD: any 32-bit pattern (u32/i32/event). */
export const K_BOOL = 0, K_UINT = 1, K_WORD = 2, K_ENUM = 3, K_FQ = 4, K_FR = 5, K_QUAT = 6, K_STR = 7;

export interface FieldSlot {
  readonly key: string;
  readonly field: Field<unknown>;
  readonly kind: number;
  /** First int32 slot (or side-table index for strings) and the slot count (1..4; 0 for strings). */
  readonly slot: number;
  readonly slots: number;
  /** Vector axes ('x','y'[, 'z']) for vec2/vec3, empty for scalars. */
  readonly axes: readonly ('x' | 'y' | 'z')[];
  /** UINT: largest value; ENUM: value count; QUAT: largest component code. */
  readonly max: number;
  /** ENUM: index bits; QUAT: component bits. */
  readonly bits: number;
  readonly factor: number;
  readonly signed: boolean;
  readonly enumIndex: ReadonlyMap<string, number> | undefined;
  readonly maxLength: number;
}

export interface TypeLayout {
  readonly typeId: number;
  readonly name: string;
  readonly codec: SchemaCodec<Schema>;
  readonly fields: readonly FieldSlot[];
  readonly slotCount: number;
  readonly stringCount: number;
  /** Fields a recipient receives: [0] when it owns the ghost, [1] when it does not. */
  readonly views: readonly [readonly FieldSlot[], readonly FieldSlot[]];
  /** True when owner and non-owner views differ. */
  readonly viewDependent: boolean;
  /** True when some slot is linearly predicted (quantized or raw floats, quaternion components). */
  readonly hasLin: boolean;
  readonly defaultRow: Int32Array;
  readonly defaultStrings: readonly string[];
}

const F32 = new Float32Array(1);
const I32 = new Int32Array(F32.buffer);

/** Float32 bits as an int32 ordered like the floats (so deltas of nearby floats are small). */
export function orderedBits(v: number): number {
  F32[0] = v;
  const b = I32[0]!;
  return b ^ ((b >> 31) & 0x7fff_ffff);
}

export function fromOrdered(o: number): number {
  I32[0] = o ^ ((o >> 31) & 0x7fff_ffff);
  return F32[0]!;
}

/** True when the ordered bits decode to a finite float32. */
export function orderedFinite(o: number): boolean {
  return (((o ^ ((o >> 31) & 0x7fff_ffff)) >>> 23) & 0xff) !== 0xff;
}

function slotFor(key: string, f: Field<unknown>, slot: number, str: number): FieldSlot {
  const base = { key, field: f, slot, axes: [] as ('x' | 'y' | 'z')[], max: 0, bits: 0, factor: 1, signed: false, enumIndex: undefined, maxLength: 0 };
  switch (f.kind) {
    case 'bool':
      return { ...base, kind: K_BOOL, slots: 1, max: 1 };
    case 'u8':
      return { ...base, kind: K_UINT, slots: 1, max: 0xff };
    case 'u16':
      return { ...base, kind: K_UINT, slots: 1, max: 0xffff };
    case 'u32':
    case 'event':
      return { ...base, kind: K_WORD, slots: 1 };
    case 'i32':
      return { ...base, kind: K_WORD, slots: 1, signed: true };
    case 'enum': {
      const values = f.values ?? [];
      let bits = 0;
      while (2 ** bits < values.length) bits++;
      return { ...base, kind: K_ENUM, slots: 1, max: values.length, bits, enumIndex: new Map(values.map((v, i) => [v, i])) };
    }
    case 'f32':
    case 'vec2':
    case 'vec3': {
      const axes: ('x' | 'y' | 'z')[] = f.kind === 'f32' ? [] : f.kind === 'vec2' ? ['x', 'y'] : ['x', 'y', 'z'];
      const q = f.quantizeFactor;
      return { ...base, kind: q === undefined ? K_FR : K_FQ, slots: Math.max(1, axes.length), axes, factor: q ?? 1 };
    }
    case 'quat': {
      const bits = f.bits ?? 12;
      return { ...base, kind: K_QUAT, slots: 4, bits, max: quatTop(bits) };
    }
    case 'string':
      return { ...base, kind: K_STR, slot: str, slots: 0, maxLength: f.maxLength ?? 0 };
  }
}

/** Compile the layout of every ghost type of the protocol (index = typeId). */
export function compileLayouts(protocol: Protocol): TypeLayout[] {
  return protocol.ghostList.map((entry: GhostEntry): TypeLayout => {
    const fields: FieldSlot[] = [];
    let slot = 0;
    let str = 0;
    for (const key of entry.codec.keys) {
      const f = entry.codec.schema[key]!;
      if (!f.options.replicated) continue;
      const s = slotFor(key, f, slot, str);
      if (s.kind === K_STR) str++;
      else slot += s.slots;
      fields.push(s);
    }
    if (slot > 0x7fff) throw new NetcodeError('protocol/invalid', `react-netcode: ghost "${entry.name}" has too many fields for a snapshot; split it into several ghosts.`);
    const owner = fields.filter((s) => s.field.options.sendTo !== 'nonOwner');
    const other = fields.filter((s) => s.field.options.sendTo !== 'owner');
    const defaultRow = new Int32Array(slot);
    const defaultStrings: string[] = new Array<string>(str).fill('');
    quantizeInto(fields, entry.codec.defaults() as Record<string, unknown>, defaultRow, 0, defaultStrings, 0, -1, entry.name);
    return {
      typeId: entry.id,
      name: entry.name,
      codec: entry.codec,
      fields,
      slotCount: slot,
      stringCount: str,
      views: [owner, other],
      viewDependent: owner.length !== fields.length || other.length !== fields.length,
      hasLin: fields.some((s) => s.kind === K_FQ || s.kind === K_FR || s.kind === K_QUAT),
      defaultRow,
      defaultStrings,
    };
  });
}

function bad(id: number, type: string, s: FieldSlot, v: unknown): WireError {
  const problem = s.field.validate(v) ?? 'cannot be encoded';
  return new WireError('wire/bad-value', `react-netcode: ghost ${id} (${type}) field "${s.key}" ${problem}; set a valid value before the snapshot is encoded.`);
}

/** Quantize ghost `values` into row[off..] and strs[soff..]; throws WireError bad-value on a value the field cannot send. */
export function quantizeInto(fields: readonly FieldSlot[], values: Record<string, unknown>, row: Int32Array, off: number, strs: string[], soff: number, id: number, type: string): void {
  for (let i = 0; i < fields.length; i++) {
    const s = fields[i]!;
    const v = values[s.key];
    const o = off + s.slot;
    const kind = s.kind;
    if (kind === K_FQ || kind === K_FR) {
      const n = s.axes.length;
      if (n === 0) {
        if (typeof v !== 'number') throw bad(id, type, s, v);
        row[o] = kind === K_FQ ? fq(v, s.factor) : fr(v);
      } else {
        // Named reads keep the property loads monomorphic (this runs per ghost per tick).
        const vec = v as { x: unknown; y: unknown; z?: unknown } | null;
        if (typeof vec !== 'object' || vec === null) throw bad(id, type, s, v);
        const x = vec.x;
        const y = vec.y;
        const z = n === 3 ? vec.z : 0;
        if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') throw bad(id, type, s, v);
        const a = kind === K_FQ ? fq(x, s.factor) : fr(x);
        const b = kind === K_FQ ? fq(y, s.factor) : fr(y);
        const c = kind === K_FQ ? fq(z, s.factor) : fr(z);
        if (a === BAD || b === BAD || c === BAD) throw bad(id, type, s, v);
        row[o] = a;
        row[o + 1] = b;
        if (n === 3) row[o + 2] = c;
        continue;
      }
      if (row[o] === BAD) throw bad(id, type, s, v);
      continue;
    }
    switch (kind) {
      case K_QUAT: {
        const q = v as Quat | null;
        if (typeof q !== 'object' || q === null || !quatCodes(q.x, q.y, q.z, q.w, s.bits)) throw bad(id, type, s, v);
        row[o] = QUAT_CODES[0]!;
        row[o + 1] = QUAT_CODES[1]!;
        row[o + 2] = QUAT_CODES[2]!;
        row[o + 3] = QUAT_CODES[3]!;
        break;
      }
      case K_BOOL:
        if (typeof v !== 'boolean') throw bad(id, type, s, v);
        row[o] = v ? 1 : 0;
        break;
      case K_UINT:
      case K_WORD:
        if (typeof v !== 'number' || !Number.isInteger(v) || v < (s.signed ? -0x8000_0000 : 0) || v > (kind === K_UINT ? s.max : s.signed ? 0x7fff_ffff : 0xffff_ffff)) throw bad(id, type, s, v);
        row[o] = v | 0;
        break;
      case K_ENUM: {
        const idx = typeof v === 'string' ? s.enumIndex!.get(v) : undefined;
        if (idx === undefined) throw bad(id, type, s, v);
        row[o] = idx;
        break;
      }
      case K_STR:
        if (typeof v !== 'string' || v.length > s.maxLength || utf8Length(v) < 0) throw bad(id, type, s, v);
        strs[soff + s.slot] = v;
        break;
    }
  }
}

/**
 * Marks a float the field cannot send. Never a valid slot: quantized slots are within
 * ±(2^31 − 1) and this ordered pattern is a NaN.
 */
const BAD = -0x8000_0000;

function fq(v: number, factor: number): number {
  const r = Math.round(v * factor) + 0;
  return Math.abs(r) <= 0x7fff_ffff ? r : BAD;
}

function fr(v: number): number {
  const o = orderedBits(v);
  return orderedFinite(o) ? o : BAD;
}

/** Write the fields of `view` from row[off..] / strs[soff..] into `out` (vectors and quaternions in place). Rows must be valid. */
export function materialize(view: readonly FieldSlot[], row: Int32Array, off: number, strs: readonly string[], soff: number, out: Record<string, unknown>): void {
  for (let i = 0; i < view.length; i++) {
    const s = view[i]!;
    const o = off + s.slot;
    switch (s.kind) {
      case K_BOOL:
        out[s.key] = row[o] === 1;
        break;
      case K_UINT:
      case K_WORD:
        out[s.key] = s.signed ? row[o]! : row[o]! >>> 0;
        break;
      case K_ENUM:
        out[s.key] = s.field.values![row[o]!];
        break;
      case K_FQ:
      case K_FR:
        if (s.axes.length === 0) out[s.key] = s.kind === K_FQ ? row[o]! / s.factor : fromOrdered(row[o]!);
        else {
          const vec = out[s.key] as { x: number; y: number; z: number };
          const q = s.kind === K_FQ;
          vec.x = q ? row[o]! / s.factor : fromOrdered(row[o]!);
          vec.y = q ? row[o + 1]! / s.factor : fromOrdered(row[o + 1]!);
          if (s.axes.length === 3) vec.z = q ? row[o + 2]! / s.factor : fromOrdered(row[o + 2]!);
        }
        break;
      case K_QUAT:
        quatFromCodes(s.field as Field<Quat>, s.bits, row[o]!, row[o + 1]!, row[o + 2]!, row[o + 3]!, out[s.key] as Quat);
        break;
      case K_STR:
        out[s.key] = strs[soff + s.slot];
        break;
    }
  }
}

/** True when two rows (and their strings) hold the same state. */
export function rowsEqual(n: number, a: Int32Array, ao: number, b: Int32Array, bo: number, sn: number, as: readonly string[], aso: number, bs: readonly string[], bso: number): boolean {
  for (let i = 0; i < n; i++) if (a[ao + i] !== b[bo + i]) return false;
  for (let i = 0; i < sn; i++) if (as[aso + i] !== bs[bso + i]) return false;
  return true;
}
