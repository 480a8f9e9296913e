import { afterEach } from 'vitest';

/** What a test started and must stop: servers, gateways, temp directories. */
export interface Cleanups {
  /** Adds a cleanup; after the test, cleanups run last added first (a gateway stops before its fake). */
  push(cleanup: () => Promise<void> | void): void;
}

/**
 * Registers an `afterEach` in the calling file (call it at module level) that runs the cleanups
 * the test pushed, last added first. Every cleanup runs even when one throws; then the first
 * error is thrown, so a failing stop still fails the test.
 */
export function cleanupAfterEach(): Cleanups {
  const pending: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const cleanup of pending.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  });
  return { push: (cleanup) => void pending.push(cleanup) };
}
