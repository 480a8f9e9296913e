import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The umask `switchboard start` sets before anything is created: what the gateway, SQLite, the
 * runners and their children make is readable by this user only (directories 0700, files 0600).
 */
export const PRIVATE_UMASK = 0o077;

/**
 * How many entries a start looks at. Parents are tightened before their children, so whatever a
 * large workspace leaves unvisited lies inside a 0700 directory already: no one else can reach it.
 */
const MAX_ENTRIES = 10_000;

/**
 * Makes the state dir private however the process was started: creates it (0700) if needed and
 * takes the group and other bits off everything already in it, including what another process
 * made with its own umask (pm2's daemon opens its log files under data/logs before the gateway
 * runs). Owner bits are kept, so an executable stays executable; symlinks are not followed.
 * Returns the entries that were tightened (relative paths), for the log.
 */
export async function makeStateDirPrivate(stateDir: string): Promise<string[]> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const tightened: string[] = [];
  let visited = 0;
  async function tighten(entry: string): Promise<void> {
    visited += 1;
    if (visited > MAX_ENTRIES) return;
    const stats = await lstat(entry).catch((error: NodeJS.ErrnoException) => {
      // Removed while we walked (a runner's temp file): nothing left to protect.
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!stats || stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) {
      await chmod(entry, stats.mode & 0o700);
      tightened.push(path.relative(stateDir, entry) || '.');
    }
    if (stats.isDirectory()) {
      for (const name of await readdir(entry)) await tighten(path.join(entry, name));
    }
  }
  await tighten(stateDir);
  return tightened;
}
