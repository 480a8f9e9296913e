import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { HttpToken } from '../app/index.js';

export type { HttpToken };

/**
 * The HTTP token: `http.token` when set; else the one kept in `<stateDir>/http-token`;
 * else a new one, written there with mode 0600 (never overwriting a file made meanwhile).
 */
export async function resolveHttpToken(configured: string | undefined, stateDir: string): Promise<HttpToken> {
  if (configured) return { token: configured, source: 'config' };
  const file = path.join(stateDir, 'http-token');
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing?.trim()) return { token: existing.trim(), source: 'file', file };
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('base64url');
  try {
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveHttpToken(undefined, stateDir);
    throw error;
  }
  return { token, source: 'generated', file };
}
