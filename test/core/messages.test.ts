// Every message the library emits starts with `react-netcode:` (docs/architecture.md, "House
// rules"): scanned over the source of src/ — thrown plain Errors, logger calls with a literal
// message, and console output, which only the default logger may write. NetcodeError adds the
// prefix itself; that is checked at run time.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NetcodeError } from '../../src/index.ts';

const srcDir = join(import.meta.dirname, '../../src');
const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.tsx?$/.test(f))
  .map((f) => ({ path: relative(join(srcDir, '..'), join(srcDir, f)), text: readFileSync(join(srcDir, f), 'utf8') }));

/** The text from each match of `pattern` on (a few hundred characters: the call's first argument). */
function callsOf(text: string, pattern: RegExp): { line: number; args: string }[] {
  const out: { line: number; args: string }[] = [];
  for (const m of text.matchAll(pattern)) {
    const at = m.index! + m[0].length;
    out.push({ line: text.slice(0, m.index).split('\n').length, args: text.slice(at, at + 400) });
  }
  return out;
}

/** Offending calls: a message argument that does not start with the prefix. */
function offenders(pattern: RegExp, bad: (args: string) => boolean): string[] {
  return files.flatMap((f) => callsOf(f.text, pattern).filter((c) => bad(c.args)).map((c) => `${f.path}:${c.line}: ${c.args.split('\n')[0]}`));
}

/** A literal message (quote or backtick) that does not begin with `react-netcode:`. */
const literalWithoutPrefix = (args: string): boolean => /^\s*(['`"])/.test(args) && !/^\s*['`"]react-netcode:/.test(args);

describe('library messages', () => {
  it('scans the whole of src/', () => {
    expect(files.length).toBeGreaterThan(80);
  });

  it('throws plain Errors only with the prefix', () => {
    expect(offenders(/new (?:Error|TypeError|RangeError)\(/g, (args) => !/^\s*['`"]react-netcode:/.test(args))).toEqual([]);
  });

  it('gives NetcodeErrors and logger calls literal messages that start with the prefix', () => {
    expect(offenders(/new (?:NetcodeError|WireError)\(\s*'[^']+',/g, literalWithoutPrefix)).toEqual([]);
    // log('warn', `…`), this.log('error', '…'), limitedLog.log('warn', key, `…`), warn(`…`)
    expect(offenders(/\b(?:log|warn)\(\s*'(?:debug|info|warn|error)',\s*(?:'[^']*',\s*|[a-z][\w.]*,\s*)?/g, literalWithoutPrefix)).toEqual([]);
    expect(offenders(/\b(?:log|warn)\(\s*(?=[`'])(?!'(?:debug|info|warn|error)',)/g, literalWithoutPrefix)).toEqual([]);
  });

  it('writes to the console only through the default logger (and the init command line tool)', () => {
    const consoleUsers = files.filter((f) => /\bconsole\.\w+\(/.test(f.text)).map((f) => f.path);
    expect(consoleUsers).toEqual([join('src', 'bin', 'init.ts'), join('src', 'core', 'emitter.ts')]);
  });

  it('the scan can fail: it flags a message without the prefix', () => {
    expect(callsOf("this.log('warn', `something broke`);", /\b(?:log|warn)\(\s*'(?:debug|info|warn|error)',\s*/g).map((c) => literalWithoutPrefix(c.args))).toEqual([true]);
    expect(callsOf("throw new Error('oops');", /new (?:Error|TypeError|RangeError)\(/g).map((c) => literalWithoutPrefix(c.args))).toEqual([true]);
  });

  it('NetcodeError adds the prefix to a message without it, once', () => {
    expect(new NetcodeError('usage', 'pass a protocol').message).toBe('react-netcode: pass a protocol');
    expect(new NetcodeError('usage', 'react-netcode: pass a protocol').message).toBe('react-netcode: pass a protocol');
  });
});
