import path from 'node:path';
import {
  backUpRunningConfig,
  droppedParts,
  keepReadyConfig,
  type LoadedConfig,
  restoreStartedConfig,
  writtenByEditor,
} from '../base/config/index.js';
import type { Logger } from '../base/logging/index.js';

/**
 * The host's side of the config file across starts (issue 28 §6), in src/base/config's file functions:
 * the last config that reached ready is kept, a restart onto a file changed by hand backs up the
 * running one and warns when things are dropped, a failed restart puts back the config that started.
 */

const stateDirOf = (loaded: LoadedConfig) => path.resolve(loaded.config.stateDir);

/** At ready: `<stateDir>/config-backups/<name>.last-ready`; at a cold start an earlier differing one is backed up. */
export async function keepReady(loaded: LoadedConfig, coldStart: boolean, logger: Logger): Promise<void> {
  if (!loaded.path) return;
  const kept = await keepReadyConfig({
    file: loaded.path,
    text: loaded.text,
    stateDir: stateDirOf(loaded),
    now: new Date(),
    backUpEarlier: coldStart,
  });
  if (!kept.ok) logger.warn(kept.error);
  else if (kept.value.backup)
    logger.warn(
      { backup: kept.value.backup },
      `${loaded.path} was changed outside the config editor since the last start; the config that ran then is kept in ${kept.value.backup}`,
    );
}

/**
 * Before a restart stops the running gateway: when the new file was not written by the config
 * editor (which keeps its own backups), the running config's text is backed up; when it drops
 * models, agents, owners or channels, the warning for the asking chat (and the log) says which.
 */
export async function handChangeWarning(
  running: LoadedConfig | undefined,
  next: LoadedConfig,
  logger: Logger,
): Promise<string | undefined> {
  if (!running?.path || next.hash === running.hash) return undefined;
  const stateDir = stateDirOf(running);
  if (await writtenByEditor(stateDir, next.hash)) return undefined;
  const backup = await backUpRunningConfig(running.path, running.text, stateDir, new Date());
  if (!backup.ok) logger.warn(`could not back up the running config before the restart: ${backup.error}`);
  const dropped = droppedParts(running.config, next.config);
  if (dropped.length === 0) return undefined;
  const kept = backup.ok ? `; the config that ran before is kept in ${backup.value}` : '';
  const warning = `Warning: ${next.path} was changed outside the config editor and drops ${dropped.join('; ')}${kept}.`;
  logger.warn({ dropped }, warning);
  return warning;
}

/**
 * After a restart's start failed: the file goes back to the last config that started, the failed
 * one kept as a backup; the sentence for the chat says where (or why the file was left alone).
 */
export async function restoreAfterFailedStart(
  failed: LoadedConfig,
  previous: LoadedConfig | undefined,
  logger: Logger,
): Promise<string> {
  if (!failed.path || !previous || previous.path !== failed.path) return '';
  const restored = await restoreStartedConfig({
    file: failed.path,
    failedHash: failed.hash,
    startedText: previous.text,
    stateDir: stateDirOf(previous),
    now: new Date(),
  });
  if (!restored.ok) {
    logger.error(restored.error);
    return ` ${restored.error}.`;
  }
  const text = ` ${failed.path} is back to the last config that started; the config that failed is kept in ${restored.value.backup}.`;
  logger.warn({ backup: restored.value.backup }, text.trim());
  return text;
}
