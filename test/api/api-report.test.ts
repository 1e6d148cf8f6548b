// The public surface, pinned: each package entry's exported names (runtime values and types) must
// match the checked-in report in api/<entry>.txt, so a change to the surface shows in the diff.
// Regenerate after a deliberate change with `npx tsx test/api/report.ts --write` and review it.

import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entries, reports, root } from './report.ts';

const HOW = 'the public API changed: if that is deliberate, run `npx tsx test/api/report.ts --write` and commit api/*.txt';

describe('API report', () => {
  const all = reports();

  for (const [subpath, { file, text }] of all) {
    it(`react-netcode${subpath.slice(1)} exports what api/${relative(`${root}/api`, file)} lists`, () => {
      const pinned = existsSync(file) ? readFileSync(file, 'utf8') : '';
      expect(text, `${relative(root, file)}: ${HOW}`).toBe(pinned);
    });
  }

  it('lists as values exactly the names each entry exports at runtime', async () => {
    for (const { subpath, source } of entries()) {
      const text = all.get(subpath)!.text;
      const values = text.slice(text.indexOf('## values') + 10, text.indexOf('## types')).trim().split('\n').filter(Boolean);
      const runtime = Object.keys((await import(source)) as object).sort();
      expect(runtime, `react-netcode${subpath.slice(1)}`).toEqual(values);
    }
  });
});
