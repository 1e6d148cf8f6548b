// The timing-sensitive tests: real clocks, real sockets, child processes, browsers. `npm test`
// runs them after the parallel suite (vitest.config.ts), one file at a time, so that they do
// not compete with each other or with the rest of the suite for the machine's cores.
import { defineConfig } from 'vitest/config';
import { TIMING_SENSITIVE } from './vitest.config.ts';

export default defineConfig({
  test: {
    include: [...TIMING_SENSITIVE],
    setupFiles: ['test/setup.ts'],
    environment: 'node',
    fileParallelism: false,
    testTimeout: 60_000,
  },
});
