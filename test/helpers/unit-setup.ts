import { afterAll, vi } from 'vitest';

/*
 * The unit files share one process per worker (`isolate: false` in vitest.config.ts): whatever a
 * file faked or stubbed is put back when it ends, so the next file starts from the real thing.
 */
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
