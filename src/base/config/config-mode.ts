import { chmod, stat } from 'node:fs/promises';
import { collectSecretValues } from './redact.js';
import type { Config } from './schema/schema.js';

/** A config file that holds a secret while its group or others may read it. */
export interface LooseConfigFile {
  file: string;
  /** Its permission bits as found (`0o644`). */
  mode: number;
}

/** The file's mode as `0644`, for a log line or doctor. */
export const modeText = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * Whether the file's own text holds a secret of the config (a token, a key, a password) written out,
 * as opposed to a `${ENV}` reference, which the file can show anyone.
 */
export function holdsSecrets(text: string, config: Config): boolean {
  return collectSecretValues(config).some(
    (secret) =>
      secret.length >= 4 && (text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1))),
  );
}

/** The config file when it holds a secret and its group or others may read it; undefined otherwise. */
export async function findLooseConfigFile(loaded: {
  path: string | undefined;
  text: string;
  config: Config;
}): Promise<LooseConfigFile | undefined> {
  if (loaded.path === undefined || !holdsSecrets(loaded.text, loaded.config)) return undefined;
  const { mode } = await stat(loaded.path);
  return (mode & 0o077) === 0 ? undefined : { file: loaded.path, mode: mode & 0o777 };
}

/**
 * Makes a config file that holds a secret and is readable by group or others 0600 (owner only),
 * and answers what it found (undefined when there was nothing to tighten). The caller logs it.
 */
export async function tightenConfigFile(loaded: {
  path: string | undefined;
  text: string;
  config: Config;
}): Promise<LooseConfigFile | undefined> {
  const loose = await findLooseConfigFile(loaded);
  if (loose) await chmod(loose.file, 0o600);
  return loose;
}
