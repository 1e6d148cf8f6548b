// The per-ghost work of the encoder behind one interface: quantizing values into a row and writing a body.
// The reference kernel (layout.ts `quantizeRow`, body.ts `writeBody`) defines the bits; the generated one
// (compiled.ts) must give the same (test/core/snapshot/conformance.test.ts). Without code generation (strict
// CSP) the reference runs.

import { referenceBody } from './body.ts';
import type { BitSink } from './codes.ts';
import { canGenerate } from '../codegen.ts';
import { compileKernel } from './compiled.ts';
import { quantizeRow, type TypeLayout } from './layout.ts';

/** Quantize `values` into row[o..] / strs[so..]; false when some value is invalid (nothing is promised about the row then). */
export type Quantizer = (values: Record<string, unknown>, row: Int32Array, o: number, strs: string[], so: number) => boolean;

/** Write the body of row[co..] (cs[cso..]) against b0[b0o..] (b0s[b0so..]) and, when b1o >= 0, row[b1o..]; true: predicted. */
export type BodyWriter = (
  sink: BitSink, row: Int32Array, co: number, b0: Int32Array, b0o: number, b1o: number, dt0: number, dt1: number,
  cs: readonly string[], cso: number, b0s: readonly string[], b0so: number,
) => boolean;

export interface TypeKernel {
  readonly generated: boolean;
  readonly quantize: Quantizer;
  /** Body writers for the owner's view and everyone else's. */
  readonly body: readonly [BodyWriter, BodyWriter];
}

/** 'compiled': generated code where allowed, else the reference; 'reference': always the reference (tests compare the two). */
export type KernelMode = 'compiled' | 'reference';

export function referenceKernel(layout: TypeLayout): TypeKernel {
  return {
    generated: false,
    quantize: (values, row, o, strs, so) => quantizeRow(layout.fields, values, row, o, strs, so) < 0,
    body: [referenceBody(layout.views[0], layout.slotCount), referenceBody(layout.views[1], layout.slotCount)],
  };
}

export function kernelsFor(layouts: readonly TypeLayout[], mode: KernelMode): TypeKernel[] {
  const generate = mode === 'compiled' && canGenerate();
  return layouts.map((layout) => (generate ? compileKernel(layout) : referenceKernel(layout)));
}
