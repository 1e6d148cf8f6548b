#!/usr/bin/env node
// `npx react-netcode init my-game`: a copy of the starter (examples/starter, shipped in the
// package) in a new folder, its package.json named after it and depending on this version.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const packageRoot = join(import.meta.dirname, '../..');
const template = join(packageRoot, 'examples/starter');
const [command, target] = process.argv.slice(2);

if (command !== 'init' || target === undefined) {
  console.error('react-netcode: usage: npx react-netcode init <folder> (a copy of the starter game: a Node server and a Vite + R3F client).');
  process.exit(1);
}
const dir = resolve(target);
if (existsSync(dir) && readdirSync(dir).length > 0) {
  console.error(`react-netcode: ${dir} is not empty; pick a new folder.`);
  process.exit(1);
}
cpSync(template, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
const pkgPath = join(dir, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { name: string; dependencies: Record<string, string> };
pkg.name = basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
pkg.dependencies['react-netcode'] = `^${version}`;
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`react-netcode: created ${dir}. Next: cd ${target} && npm install && npm run dev, then open http://localhost:3000/?name=ann in two windows.`);
