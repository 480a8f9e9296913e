import path from 'node:path';
import { errorText, fail, ok, type Result } from '../../errors/index.js';
import { hashConfigText } from '../load.js';
import type { Config } from '../schema/schema.js';
import {
  BACKUP_DIR,
  backupConfigFile,
  FileSystemError,
  lockConfigFile,
  readConfigFile,
  writeConfigFile,
} from './config-files.js';
import { readConfigHistory } from './config-history.js';

/**
 * The config file across starts, whoever wrote it (issue 28 §6): the last config that reached
 * ready is kept, a file changed outside the editor gets a backup of what ran before it, and a
 * restart whose start failed puts back the config that started. Only the editor audits; these
 * keep backups in the same `<stateDir>/config-backups/` (found by hash by history and undo).
 */

/** `<stateDir>/config-backups/<basename>.last-ready`: the text of the last config that reached ready. */
export function lastReadyFile(file: string, stateDir: string): string {
  return path.join(stateDir, BACKUP_DIR, `${path.basename(file)}.last-ready`);
}

/** Whether the config editor wrote this text (its hash is one the audit log records as written). */
export async function writtenByEditor(stateDir: string, hash: string): Promise<boolean> {
  try {
    return (await readConfigHistory(stateDir)).some((change) => change.hash === hash);
  } catch (error) {
    if (error instanceof FileSystemError) return false;
    throw error;
  }
}

/**
 * Keeps `text` (a config that reached ready) as the last-ready file. When the one kept before
 * differs and this text is not the editor's, the earlier one goes to a timestamped backup first
 * (a file changed by hand while nothing ran): returns that backup's path, else undefined.
 */
export async function keepReadyConfig(options: {
  file: string;
  text: string;
  stateDir: string;
  now: Date;
  /** Back up a differing earlier one (a cold start); a restart backs up the running config itself. */
  backUpEarlier: boolean;
}): Promise<Result<{ backup: string | undefined }>> {
  const { file, text, stateDir, now } = options;
  const kept = lastReadyFile(file, stateDir);
  try {
    const before = await readConfigFile(kept);
    // The usual restart: the same text is kept already (no write, no fsync).
    if (before === text) return ok({ backup: undefined });
    let backup: string | undefined;
    const differs = options.backUpEarlier && before !== undefined && before !== text;
    if (differs && !(await writtenByEditor(stateDir, hashConfigText(text))))
      backup = await backupConfigFile(file, before, stateDir, now);
    // Same directory as the backups (made by backupConfigFile or here), mode 0600.
    await writeConfigFile(kept, text);
    return ok({ backup });
  } catch (error) {
    return fail(`cannot keep the config that reached ready in ${kept}: ${errorText(error)}`);
  }
}

/** A copy of the running config's text among the backups, before a file changed by hand replaces it. */
export async function backUpRunningConfig(
  file: string,
  text: string,
  stateDir: string,
  now: Date,
): Promise<Result<string>> {
  try {
    return ok(await backupConfigFile(file, text, stateDir, now));
  } catch (error) {
    return fail(errorText(error));
  }
}

/**
 * A restart's start failed: the file goes back to `startedText` (the last config that started),
 * under the editor's lock, when it still holds the config that failed (`failedHash`); the failed
 * text is kept as a backup first. A file changed since is left alone (someone is fixing it).
 */
export async function restoreStartedConfig(options: {
  file: string;
  failedHash: string;
  startedText: string;
  stateDir: string;
  now: Date;
}): Promise<Result<{ backup: string }>> {
  const { file, failedHash, startedText, stateDir, now } = options;
  try {
    const lock = await lockConfigFile(file);
    try {
      const current = (await readConfigFile(file)) ?? '';
      if (hashConfigText(current) !== failedHash)
        return fail(`${file} changed since the restart read it, so it is left as it is`);
      const backup = await backupConfigFile(file, current, stateDir, now);
      lock.assertHeld();
      await writeConfigFile(file, startedText);
      return ok({ backup });
    } finally {
      await lock.release();
    }
  } catch (error) {
    return fail(`${file} could not be put back: ${errorText(error)}`);
  }
}

/**
 * What `after` no longer has of `before`: model and agent ids, owners, and channels on before and
 * off after, as `models a, b; owners x` parts; [] when nothing is dropped.
 */
export function droppedParts(before: Config, after: Config): string[] {
  const gone = (from: readonly string[], to: readonly string[]) => from.filter((item) => !to.includes(item));
  const channels = (config: Config) => [
    ...(config.channels.webchat.enabled ? ['webchat'] : []),
    ...(config.channels.slack ? ['slack'] : []),
    ...(config.channels.discord ? ['discord'] : []),
  ];
  const parts: [string, string[]][] = [
    ['models', gone(Object.keys(before.models), Object.keys(after.models))],
    ['agents', gone(Object.keys(before.agents), Object.keys(after.agents))],
    ['owners', gone(before.owners, after.owners)],
    ['channels', gone(channels(before), channels(after))],
  ];
  return parts.flatMap(([name, items]) => (items.length > 0 ? [`${name} ${items.join(', ')}`] : []));
}
