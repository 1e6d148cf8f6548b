// Numeric layout of each ghost type and the reference quantizer: every replicated field maps to int32 slots of
// a row, strings to a side table. The server quantizes values into rows (one function per field kind), deltas
// are taken between rows, the client turns rows back into values (materialize).

import { codes as QUAT_CODES, decodeQuat, encodeQuatInto, utf8Length } from '../bits.ts';
import { NetcodeError, WireError } from '../errors.ts';
import type { Field, Quat } from '../field.ts';
import type { GhostEntry, Protocol } from '../protocol.ts';
import type { SchemaCodec, Schema } from '../schema.ts';

/** Slot kinds. UINT: bounded unsigned (u8/u16); WORD: any 32-bit pattern (u32/i32/event); FQ/FR: quantized/raw floats. */
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

/** The quaternion of smallest-three codes (bits.ts decodeQuat) into `out`; false when no unit quaternion has them. */
export function quatOfCodes(bits: number, idx: number, a: number, b: number, c: number, out: Quat): boolean {
  QUAT_CODES[0] = idx;
  QUAT_CODES[1] = a;
  QUAT_CODES[2] = b;
  QUAT_CODES[3] = c;
  return decodeQuat(bits, out);
}

function slotFor(key: string, f: Field<unknown>, slot: number, str: number): FieldSlot {
  const base = { key, field: f, slot, axes: [] as ('x' | 'y' | 'z')[], max: 0, bits: 0, factor: 1, signed: false, enumIndex: undefined, maxLength: 0 };
  switch (f.kind) {
    case 'bool':
      return { ...base, kind: K_BOOL, slots: 1, max: 1 };
    case 'u8':
    case 'u16':
      return { ...base, kind: K_UINT, slots: 1, max: f.kind === 'u8' ? 0xff : 0xffff };
    case 'u32':
    case 'event':
    case 'i32':
      return { ...base, kind: K_WORD, slots: 1, signed: f.kind === 'i32' };
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
      return { ...base, kind: K_QUAT, slots: 4, bits, max: 2 * ((1 << (bits - 1)) - 1) };
    }
    case 'string':
      return { ...base, kind: K_STR, slot: str, slots: 0, maxLength: f.maxLength ?? 0 };
  }
}

/** The layout of every ghost type of the protocol (index = typeId). */
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
    const defaults = entry.codec.defaults() as Record<string, unknown>;
    const bad = quantizeRow(fields, defaults, defaultRow, 0, defaultStrings, 0);
    if (bad >= 0) throw badValue(-1, entry.name, fields[bad]!, defaults);
    return {
      typeId: entry.id, name: entry.name, codec: entry.codec, fields, slotCount: slot, stringCount: str,
      views: [owner, other], viewDependent: owner.length !== fields.length || other.length !== fields.length,
      hasLin: fields.some((s) => s.kind === K_FQ || s.kind === K_FR || s.kind === K_QUAT),
      defaultRow, defaultStrings,
    };
  });
}

/** The error for field `s` of ghost `id` (type `type`) whose value in `values` cannot be sent. */
export function badValue(id: number, type: string, s: FieldSlot, values: Record<string, unknown>): WireError {
  const problem = s.field.validate(values[s.key]) ?? 'cannot be encoded';
  return new WireError('wire/bad-value', `react-netcode: ghost ${id} (${type}) field "${s.key}" ${problem}; set a valid value before the snapshot is encoded.`);
}

/** A float slot that cannot be sent: never a valid slot (quantized slots are within ±(2^31 − 1); this ordered pattern is a NaN). */
const BAD = -0x8000_0000;

/** A float slot of field s (FQ: round(v · factor) as an int32, −0 → 0; FR: its float32 bits, ordered), or BAD. */
function floatSlot(s: FieldSlot, v: unknown): number {
  if (typeof v !== 'number') return BAD;
  if (s.kind === K_FR) {
    const o = orderedBits(v);
    return orderedFinite(o) ? o : BAD;
  }
  const r = Math.round(v * s.factor) + 0;
  return Math.abs(r) <= 0x7fff_ffff ? r : BAD;
}

/** Floats and vectors (FQ, FR): one slot per axis. */
function quantizeFloats(s: FieldSlot, v: unknown, row: Int32Array, o: number): boolean {
  if (s.axes.length === 0) return (row[o] = floatSlot(s, v)) !== BAD;
  if (typeof v !== 'object' || v === null) return false;
  const vec = v as { x: unknown; y: unknown; z?: unknown };
  row[o] = floatSlot(s, vec.x);
  row[o + 1] = floatSlot(s, vec.y);
  if (s.axes.length === 3) row[o + 2] = floatSlot(s, vec.z);
  for (let k = 0; k < s.axes.length; k++) if (row[o + k] === BAD) return false;
  return true;
}

/** Quaternions: bits.ts encodeQuat's smallest-three codes (index of the largest component, then three codes). */
function quantizeQuat(s: FieldSlot, v: unknown, row: Int32Array, o: number): boolean {
  const q = v as Quat | null;
  return typeof q === 'object' && q !== null && encodeQuatInto(q.x, q.y, q.z, q.w, s.bits, row, o);
}

/** Integers, booleans and enums: one slot. */
function quantizeScalar(s: FieldSlot, v: unknown, row: Int32Array, o: number): boolean {
  if (s.kind === K_BOOL) {
    if (typeof v !== 'boolean') return false;
    row[o] = v ? 1 : 0;
  } else if (s.kind === K_ENUM) {
    const idx = typeof v === 'string' ? s.enumIndex!.get(v) : undefined;
    if (idx === undefined) return false;
    row[o] = idx;
  } else {
    const max = s.kind === K_UINT ? s.max : s.signed ? 0x7fff_ffff : 0xffff_ffff;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < (s.signed ? -0x8000_0000 : 0) || v > max) return false;
    row[o] = v | 0;
  }
  return true;
}

/** The reference quantizer: `values` into row[off..] and strs[soff..]. Returns -1, or the index of the first bad field. */
export function quantizeRow(
  fields: readonly FieldSlot[], values: Record<string, unknown>, row: Int32Array, off: number, strs: string[], soff: number,
): number {
  for (let i = 0; i < fields.length; i++) {
    const s = fields[i]!;
    const v = values[s.key];
    const kind = s.kind;
    if (kind === K_STR) {
      if (typeof v !== 'string' || v.length > s.maxLength || utf8Length(v) < 0) return i;
      strs[soff + s.slot] = v;
      continue;
    }
    const o = off + s.slot;
    const ok = kind === K_FQ || kind === K_FR ? quantizeFloats(s, v, row, o)
      : kind === K_QUAT ? quantizeQuat(s, v, row, o)
      : quantizeScalar(s, v, row, o);
    if (!ok) return i;
  }
  return -1;
}

/** Write the fields of `view` from row[off..] / strs[soff..] into `out` (vectors and quaternions in place). Rows must be valid. */
export function materialize(
  view: readonly FieldSlot[], row: Int32Array, off: number, strs: readonly string[], soff: number, out: Record<string, unknown>,
): void {
  for (let i = 0; i < view.length; i++) {
    const s = view[i]!;
    const o = off + s.slot;
    const kind = s.kind;
    if (kind === K_FQ || kind === K_FR) {
      const q = kind === K_FQ;
      if (s.axes.length === 0) out[s.key] = q ? row[o]! / s.factor : fromOrdered(row[o]!);
      else {
        const vec = out[s.key] as { x: number; y: number; z: number };
        vec.x = q ? row[o]! / s.factor : fromOrdered(row[o]!);
        vec.y = q ? row[o + 1]! / s.factor : fromOrdered(row[o + 1]!);
        if (s.axes.length === 3) vec.z = q ? row[o + 2]! / s.factor : fromOrdered(row[o + 2]!);
      }
    } else if (kind === K_QUAT) quatOfCodes(s.bits, row[o]!, row[o + 1]!, row[o + 2]!, row[o + 3]!, out[s.key] as Quat);
    else if (kind === K_STR) out[s.key] = strs[soff + s.slot];
    else if (kind === K_BOOL) out[s.key] = row[o] === 1;
    else if (kind === K_ENUM) out[s.key] = s.field.values![row[o]!];
    else out[s.key] = s.signed ? row[o]! : row[o]! >>> 0;
  }
}
