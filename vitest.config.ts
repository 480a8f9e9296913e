import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A poll waits for something that will happen (a reply, a restart, a wake): on a loaded machine
    // that can take more than vitest's default second. It still fails when the thing never happens.
    expect: { poll: { timeout: 10_000 } },
    // Process and browser tests start servers and child processes and spend much of their time
    // waiting on them (restart delays, timers): on the 2-core machine three files at a time keep the
    // cores busy (168% CPU; the whole run 302 s against 372 s with two) without oversubscribing.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Unit files start no server, process or gateway and count nothing the process holds, so they
          // share a process per worker: each file then costs its tests, not another import of src/
          // (16 files: 31 s → 11 s). `unit-setup.ts` puts back timers, mocks and stubs after each file.
          isolate: false,
          setupFiles: ['test/helpers/unit-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // Each file in its own process: these start gateways, fakes and children, and several count
          // the sockets, timers and descriptors of the whole process before and after.
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
        },
      },
    ],
  },
});
