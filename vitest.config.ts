import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/setup.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts', 'test/**/*.test-d.tsx'] },
    environment: 'node',
    testTimeout: 20_000,
  },
});
