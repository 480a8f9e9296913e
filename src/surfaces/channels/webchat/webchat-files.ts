import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OutboundFile } from '../../../base/messages/index.js';

/** How many sent files the web chat keeps; older ones are deleted (their links then answer 404). */
export const MAX_KEPT_FILES = 100;
const ID = /^[0-9a-f]{32}$/;

/** A file kept for download: its folder id and the (safe) name it is served under. */
export interface KeptFile {
  id: string;
  name: string;
  size: number;
}

export interface WebchatFileStore {
  /** Writes the file's bytes under a new random id, then deletes the oldest beyond the limit. */
  keep(file: OutboundFile): Promise<KeptFile>;
  /** The bytes of a kept file; undefined for an unknown or malformed id or name. */
  read(id: string, name: string): Promise<Uint8Array | undefined>;
}

/** A name safe in a URL and a folder: letters, digits, `_ . -`; no leading dot. */
export function safeFileName(name: string): string {
  const safe = path
    .basename(name)
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .replace(/^\.+/, '_');
  return safe.slice(-100) || 'file';
}

/**
 * Files sent to web chat users, kept in `dir/<id>/<name>` (at most `limit`). Ids are 128 random
 * bits in hex: a request whose id or name is not of that shape never touches the disk.
 */
export function createWebchatFileStore(options: { dir: string; limit?: number }): WebchatFileStore {
  const limit = options.limit ?? MAX_KEPT_FILES;
  let order: string[] | undefined;

  /** The kept ids, oldest first: those of an earlier run by their folders' times. */
  const known = async () => {
    if (order) return order;
    const entries = await readdir(options.dir).catch(() => [] as string[]);
    const dated = await Promise.all(
      entries
        .filter((entry) => ID.test(entry))
        .map(async (entry) => ({ entry, time: (await stat(path.join(options.dir, entry))).mtimeMs })),
    );
    order = dated.sort((a, b) => a.time - b.time).map(({ entry }) => entry);
    return order;
  };

  return {
    async keep(file) {
      const ids = await known();
      const id = randomBytes(16).toString('hex');
      const name = safeFileName(file.name);
      const folder = path.join(options.dir, id);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeFile(path.join(folder, name), file.bytes, { mode: 0o600 });
      ids.push(id);
      for (const old of ids.splice(0, Math.max(0, ids.length - limit)))
        await rm(path.join(options.dir, old), { recursive: true, force: true });
      return { id, name, size: file.bytes.byteLength };
    },
    async read(id, name) {
      if (!ID.test(id) || safeFileName(name) !== name) return undefined;
      try {
        return await readFile(path.join(options.dir, id, name));
      } catch {
        return undefined;
      }
    },
  };
}
