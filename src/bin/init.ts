#!/usr/bin/env node
// `npx react-netcode init my-game`: a copy of the starter (examples/starter, shipped in the
// package) in a new folder, its package.json named after it and depending on this version
// (`--from <tarball or spec>`: on that instead, e.g. a tarball made by `npm pack`).
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';

const packageRoot = join(import.meta.dirname, '../..');
const template = join(packageRoot, 'examples/starter');
const args = process.argv.slice(2);
const fromAt = args.indexOf('--from');
const from = fromAt >= 0 ? args.splice(fromAt, 2)[1] : undefined;
const [command, target, extra] = args;

if (command !== 'init' || target === undefined || extra !== undefined || (fromAt >= 0 && !from)) {
  console.error(
    'react-netcode: usage: npx react-netcode init <folder> [--from <path/to/react-netcode-x.y.z.tgz | version range>] ' +
      '(a copy of the starter game: a Node server and a Vite + R3F client).',
  );
  process.exit(1);
}
const dir = resolve(target);
if (existsSync(dir) && readdirSync(dir).length > 0) {
  console.error(`react-netcode: ${dir} is not empty; pick a new folder.`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
const dependency = from === undefined ? `^${version}` : dependencySpec(from, dir);
cpSync(template, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
const pkgPath = join(dir, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { name: string; dependencies: Record<string, string> };
pkg.name = basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
pkg.dependencies['react-netcode'] = dependency;
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(
  `react-netcode: created ${dir}, depending on react-netcode ${dependency}. ` +
    `Next: cd ${target} && npm install && npm run dev, then open http://localhost:3000/?name=ann in two windows.`,
);
if (from === undefined) {
  console.log('react-netcode: if npm install cannot find react-netcode on the registry, run init again with --from path/to/react-netcode-x.y.z.tgz (made by npm pack).');
}

/** A tarball or folder path becomes `file:` relative to the new project (the two can move together); anything else is kept as given. */
function dependencySpec(spec: string, projectDir: string): string {
  const path = spec.startsWith('file:') ? spec.slice(5) : spec;
  const isPath = spec.startsWith('file:') || /\.(tgz|tar\.gz)$/.test(path) || path.startsWith('.') || isAbsolute(path);
  if (!isPath) return spec;
  const full = resolve(path);
  if (!existsSync(full)) {
    console.error(`react-netcode: --from ${spec}: ${full} does not exist; give the tarball that npm pack made.`);
    process.exit(1);
  }
  const rel = relative(projectDir, full).split('\\').join('/');
  return `file:${rel.startsWith('.') ? rel : `./${rel}`}`;
}
