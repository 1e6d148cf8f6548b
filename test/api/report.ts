// The API report: the names each package entry exports, runtime values and types apart, read from
// the source by the TypeScript compiler. api/<entry>.txt holds the checked-in report that
// test/api/api-report.test.ts compares against; `npx tsx test/api/report.ts --write` regenerates it.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const root = join(import.meta.dirname, '../..');
export const reportDir = join(root, 'api');

interface PackageJson {
  exports: Record<string, { types: string; import: string } | string>;
}

/** Each package.json "exports" subpath that is code, with the source file its build comes from. */
export function entries(): { subpath: string; source: string; file: string }[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  const out: { subpath: string; source: string; file: string }[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object') continue;
    const built = target.types ?? Object.values(target).find((t) => typeof t === 'string' && t.endsWith('.d.ts'));
    if (typeof built !== 'string') continue;
    const source = join(root, built.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
    const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
    out.push({ subpath, source, file: join(reportDir, `${name}.txt`) });
  }
  return out;
}

/** The report of every entry: its values (exported at runtime) and its type-only exports, sorted. */
export function reports(): Map<string, { file: string; text: string }> {
  const list = entries();
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram(list.map((e) => e.source), { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const out = new Map<string, { file: string; text: string }>();
  for (const entry of list) {
    const sourceFile = program.getSourceFile(entry.source);
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
    if (!moduleSymbol) throw new Error(`api report: cannot read ${entry.source}`);
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const typeOnly = isTypeOnly(symbol, target);
      (typeOnly ? types : values).push(symbol.name);
    }
    values.sort();
    types.sort();
    const text = [`# react-netcode${entry.subpath.slice(1)}: ${values.length} values, ${types.length} types`, '', '## values', ...values, '', '## types', ...types, ''].join('\n');
    out.set(entry.subpath, { file: entry.file, text });
  }
  return out;
}

function isTypeOnly(symbol: ts.Symbol, target: ts.Symbol): boolean {
  if (!(target.flags & ts.SymbolFlags.Value)) return true;
  // `export type { X }` of a class or const: a type at the entry, whatever the target is.
  return (symbol.declarations ?? []).some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly));
}

if (process.argv.includes('--write')) {
  mkdirSync(reportDir, { recursive: true });
  for (const { file, text } of reports().values()) writeFileSync(file, text);
} else if (process.argv[1] === import.meta.filename) {
  for (const [subpath, { text }] of reports()) console.log(subpath, text.split('\n')[0]);
}
