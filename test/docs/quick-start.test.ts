// docs/quick-start.md shows the starter's files in full: each block preceded by
// `<!-- file: examples/starter/… -->` must be that file, byte for byte (so the guide and the
// starter, which test/package/starters.test.ts plays in a browser, cannot drift apart).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const doc = readFileSync(join(ROOT, 'docs/quick-start.md'), 'utf8');
const blocks = [...doc.matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g)];

describe('docs/quick-start.md', () => {
  it('shows every code file of the starter (all but package.json and README.md)', () => {
    expect(blocks.map(([, path]) => path).sort()).toEqual(
      ['index.html', 'server.ts', 'src/main.tsx', 'src/shared.ts', 'tsconfig.json', 'vite.config.ts'].map((f) => `examples/starter/${f}`),
    );
  });
  for (const [, path, code] of blocks) {
    it(`shows ${path} as it is`, () => expect(code).toBe(readFileSync(join(ROOT, path!), 'utf8').replace(/\n$/, '')));
  }
});

describe('examples/canvas-2d', () => {
  // "The same game": its protocol, systems and server are the starter's, only the client differs.
  for (const file of ['src/shared.ts', 'server.ts']) {
    it(`has the starter's ${file}`, () =>
      expect(readFileSync(join(ROOT, 'examples/canvas-2d', file), 'utf8')).toBe(readFileSync(join(ROOT, 'examples/starter', file), 'utf8')));
  }
});
