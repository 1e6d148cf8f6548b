// docs/api.md is the reference of the public API: every instance member of NetClient and NetServer a
// game can reach, every field of `client.time`, every hook of react-netcode/react and every package
// entry must be in it. The members are read from the source by the TypeScript compiler (as
// test/api/report.ts reads the exports), so a new public member fails here until the page lists it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { entries, root } from '../api/report.ts';

const DOC = 'docs/api.md';
const doc = readFileSync(join(root, DOC), 'utf8');

const FILES = { client: 'src/core/client.ts', server: 'src/core/server.ts', time: 'src/core/clock/network-time.ts', react: 'src/react/index.ts' };
const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(Object.values(FILES).map((f) => join(root, f)), { ...config!.options, noEmit: true });
const checker = program.getTypeChecker();

function moduleExports(file: string): ts.Symbol[] {
  const source = program.getSourceFile(join(root, file));
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${DOC} test: cannot read ${file}`);
  return checker.getExportsOfModule(module);
}

/** The members of an exported class or interface that code outside it can reach (not private or protected). */
function publicMembers(file: string, name: string): string[] {
  const symbol = moduleExports(file).find((s) => s.name === name);
  if (!symbol) throw new Error(`${DOC} test: ${file} exports no ${name}`);
  const members: string[] = [];
  for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
    if (member.name.startsWith('#') || member.name.startsWith('__#')) continue; // ES private fields
    const hidden = (member.declarations ?? []).some((d) => ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
    if (!hidden) members.push(member.name);
  }
  return members.sort();
}

/** The text under a heading, down to the next heading of the same level or higher. */
function section(heading: string): string {
  const lines = doc.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${DOC} has no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Whether `text` has a code span starting with `code` (a name, not a longer one: `client.send` is not `client.sender`). */
function mentions(text: string, code: string): boolean {
  return new RegExp('`' + code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?![\\w$])').test(text);
}

const WHAT = 'its signature in short form, one line on what it is, and its unit (ms, ticks, bytes)';

describe(DOC, () => {
  for (const [cls, file, prefix, heading] of [
    ['NetClient', FILES.client, 'client', '### createClient / NetClient'],
    ['NetServer', FILES.server, 'server', '### createServer / NetServer'],
  ] as const) {
    it(`lists every public member of ${cls}`, () => {
      const members = publicMembers(file, cls);
      expect(members.length, `${cls}'s public members, read from ${file}`).toBeGreaterThan(20);
      const missing = members.filter((m) => !mentions(doc, `${prefix}.${m}`));
      expect(
        missing,
        `${DOC} does not mention ${cls}'s public ${missing.map((m) => `\`${prefix}.${m}\``).join(', ')}: add a row for each to the table under "${heading}" (${WHAT}), or make the member private if a game should not reach it`,
      ).toEqual([]);
    });
  }

  it('lists every field of client.time (NetworkTime)', () => {
    const fields = publicMembers(FILES.time, 'NetworkTime');
    expect(fields).toContain('rttMs');
    const text = section('#### client.time');
    const missing = fields.filter((f) => !mentions(text, f) && !mentions(text, `client.time.${f}`));
    expect(missing, `${DOC}, "#### client.time", does not list NetworkTime's ${missing.map((f) => `\`${f}\``).join(', ')}: add a row for each (what it is and its unit)`).toEqual([]);
  });

  it('lists every hook react-netcode/react exports', () => {
    const hooks = moduleExports(FILES.react).map((s) => s.name).filter((n) => /^use[A-Z]/.test(n)).sort();
    expect(hooks).toContain('useNetworkTime');
    const text = section('## react-netcode/react');
    const missing = hooks.filter((h) => !mentions(text, h));
    expect(missing, `${DOC}, "## react-netcode/react", does not list ${missing.map((h) => `\`${h}\``).join(', ')}: add a row for each (${WHAT})`).toEqual([]);
  });

  it('names every package entry', () => {
    const names = entries().map((e) => `react-netcode${e.subpath.slice(1)}`);
    expect(names.length).toBeGreaterThan(10);
    const missing = names.filter((n) => !doc.includes(`\`${n}\``));
    expect(missing, `${DOC} does not name the package entries ${missing.map((n) => `\`${n}\``).join(', ')} (package.json "exports"): add each to the table of entries at the top, with a section`).toEqual([]);
  });
});
