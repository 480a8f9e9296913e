import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../../base/errors/index.js';
import { MANIFEST_FILE } from './manifest-schema.js';
import { isInside } from './module-path.js';
import type { ToolpackProblem } from './types.js';

/** The largest manifest read: real manifests are a few kilobytes; a bigger file is refused unread. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Reads `suzumio.toolpack.json` from a toolpack directory (its real path). The manifest may be a
 * symlink only to a file inside the directory, and its size is checked before anything is read
 * (at most `MAX_MANIFEST_BYTES + 1` bytes are ever read, so a file growing meanwhile changes nothing).
 * Problems name `shownFile`, the manifest as the operator wrote the path.
 */
export async function readManifest(
  directory: string,
  shownFile: string,
): Promise<Result<string, ToolpackProblem>> {
  const refuse = (rule: ToolpackProblem['rule'], message: string) => fail({ file: shownFile, rule, message });
  const written = path.join(directory, MANIFEST_FILE);
  let real: string;
  try {
    real = await realpath(written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(
      'manifest-missing',
      `cannot read ${MANIFEST_FILE} (${code}); every toolpack directory needs one`,
    );
  }
  if (!isInside(directory, real)) {
    return refuse(
      'manifest-symlink-escape',
      `${MANIFEST_FILE} is a symlink to ${real}, outside the toolpack directory; the manifest must live in the toolpack`,
    );
  }
  const handle = await open(real, 'r').catch((error: NodeJS.ErrnoException) => error);
  if (!('fd' in handle)) {
    return refuse(
      'manifest-missing',
      `cannot read ${MANIFEST_FILE} (${handle.code}); every toolpack directory needs one`,
    );
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return refuse('manifest-missing', `${MANIFEST_FILE} is not a file: ${real}`);
    if (stats.size > MAX_MANIFEST_BYTES) return refuse('manifest-too-large', tooLarge(stats.size));
    const buffer = Buffer.alloc(MAX_MANIFEST_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_MANIFEST_BYTES) return refuse('manifest-too-large', tooLarge(length));
    return ok(buffer.toString('utf8', 0, length));
  } finally {
    await handle.close();
  }
}

function tooLarge(size: number): string {
  return `${MANIFEST_FILE} is ${size} bytes; a manifest may have at most ${MAX_MANIFEST_BYTES} bytes (1 MiB), so it is not read`;
}
