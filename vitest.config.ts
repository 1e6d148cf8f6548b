import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that measure real time (frame rates, stalls, browsers, processes): excluded here and run
 * by vitest.timing.config.ts after this parallel suite, one file at a time (`npm test`).
 */
export const TIMING_SENSITIVE = [
  'test/realpath/**/*.test.ts',
  'test/demo/server.test.ts',
  'test/demo/e2e.test.ts',
  'test/demo/leave.test.ts',
  'test/demo/bundle.test.ts',
  'test/demo/play.test.ts',
  'test/demo/rooms.test.ts',
  'test/storybook/stories.test.ts',
  'test/package/**/*.test.ts',
  'test/rooms/cluster.test.ts',
  'test/rooms/redis.test.ts',
  'test/rooms/workers.test.ts',
  'test/rooms/killed-room.test.ts',
  'test/webrtc/fallback.test.ts',
  'test/webrtc/node.test.ts',
  'test/webrtc/chromium.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: [...configDefaults.exclude, ...TIMING_SENSITIVE],
    setupFiles: ['test/setup.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts', 'test/**/*.test-d.tsx'] },
    environment: 'node',
    testTimeout: 20_000,
  },
});
