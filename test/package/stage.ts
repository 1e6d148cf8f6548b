// A copy of what `npm pack` reads — package.json, what its "files" names, README.md,
// CHANGELOG.md, LICENSE and the build's tsconfigs — in a temporary folder, with the
// repository's node_modules linked in. Packing there builds its own dist/ (`prepack`), so
// the package tests neither race each other nor test/package.test.ts on the repository's dist/.
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

export function stagePackage(): string {
  const stage = mkdtempSync(join(tmpdir(), 'rn-stage-'));
  const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const entries = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', ...files.filter((f) => !f.startsWith('!') && f !== 'dist')];
  for (const entry of entries) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir');
  return stage;
}
