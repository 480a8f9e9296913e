import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import PQueue from 'p-queue';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import { createKeyvStore } from './keyv-store.js';
import type { Store } from './types.js';

/**
 * The SQLite store (`sqlite://<file>`): one file, one @keyv/sqlite connection per namespace.
 * Every connection runs in WAL mode with `synchronous=NORMAL` (the setting is per connection):
 * a committed write survives a process crash without an fsync per write. Writes from all
 * connections go one at a time through this process, so they never wait on each other's
 * file lock (SQLite's busy handler would sleep for milliseconds).
 */
export async function openSqliteStore(url: string, logger: Logger): Promise<Store> {
  const file = url.slice('sqlite://'.length);
  if (file === '') throw new SwitchboardError('STORE_URL_INVALID', 'store.url: sqlite:// needs a file path');
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });

  const adapters: KeyvSqlite[] = [];
  const settings: Promise<void>[] = [];
  const open = () => {
    const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 10_000, iterationLimit: 500 });
    adapters.push(adapter);
    const ready = (async () => {
      await adapter.query('PRAGMA journal_mode=WAL');
      await adapter.query('PRAGMA synchronous=NORMAL');
    })();
    // A failure surfaces in the first operation that awaits `ready`; close waits for it either way.
    settings.push(ready.catch(() => {}));
    return { adapter, ready };
  };

  // Open one connection now, so that a bad path fails the start instead of the first message.
  const first = open();
  try {
    await first.ready;
  } catch (error) {
    await first.adapter.disconnect().catch(() => {});
    throw new SwitchboardError(
      'STORE_UNAVAILABLE',
      `store: cannot open SQLite file ${file}: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
  let unused: ReturnType<typeof open> | undefined = first;
  const writes = new PQueue({ concurrency: 1 });

  return createKeyvStore({
    kind: 'sqlite',
    location: `sqlite://${file}`,
    logger,
    adapterFor() {
      const connection = unused ?? open();
      unused = undefined;
      return connection;
    },
    exclusive: (write) => writes.add(write),
    async close() {
      // Settings still running on a connection nobody used yet would hit a closed handle.
      await Promise.all(settings);
      await writes.onIdle();
      await Promise.all(adapters.map((adapter) => adapter.disconnect()));
    },
  });
}
