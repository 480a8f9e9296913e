import { readdirSync, readlinkSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

/**
 * What this test process holds open, for the tests that prove a stop or a restart leaks nothing.
 * Linux only: file descriptors are read from /proc/self/fd.
 */

/** Open file descriptors: an unclosed SQLite connection holds files but no libuv handle. */
export function openFileDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Open descriptors whose path ends with `suffix` (`.sqlite-wal`: one per SQLite connection that has read the WAL). */
export function openFiles(suffix: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).endsWith(suffix);
    } catch {
      return false;
    }
  }).length;
}

/** Open socket descriptors: pooled keep-alive sockets count too, ref'd or not. */
export function openSockets(): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

/** How many handles or requests of `type` (`Timeout`, `TCPSocketWrap`, …) keep the event loop alive. */
export function countResources(type: string): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === type).length;
}

/** Handles and requests that keep the event loop alive, by type, plus `fileDescriptors`. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = { fileDescriptors: openFileDescriptors() };
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/**
 * Waits (up to 100 × 20 ms) for `activeResources()` to equal `expected` and returns the last count:
 * a closed child's handle goes on a later turn. Not `expect.poll`, whose own deadline timer would
 * count as a resource while it polls.
 */
export async function settledResources(expected: Record<string, number>): Promise<Record<string, number>> {
  let now = activeResources();
  for (let attempt = 0; attempt < 100 && !isDeepStrictEqual(now, expected); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = activeResources();
  }
  return now;
}
