import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Process and browser tests start servers and child processes; keep the 2-core machine from oversubscribing.
    maxWorkers: 2,
  },
});
