import { hashConfigText } from '../load.js';
import { collectSecretValues, createSecretScrubber, type SecretPath } from '../redact.js';
import type { EditPlan } from './config-edit-plan.js';
import { STALE_HASH_ERROR } from './config-edit-plan.js';
import type { AuditAction, ConfigEditRequest, ConfigEditResult } from './config-edit-types.js';
import {
  appendConfigAudit,
  backupConfigFile,
  type ConfigFileLock,
  FileSystemError,
  lockConfigFile,
  readConfigFile,
  writeConfigFile,
} from './config-files.js';

/** Where and when an edit is written, and how its note loses secrets. */
export interface EditTarget {
  /** The config file, absolute. */
  file: string;
  /** Absolute: backups and the audit log. */
  stateDir: string;
  at: Date;
  secretPaths: SecretPath[];
  scrub?: ((text: string) => string) | undefined;
}

/**
 * The planned edit under the cross-process lock. The lock is held only for this short step (not for
 * the dry run): a holder that stops refreshing it (a killed process, or one starved of CPU for the
 * stale time) loses it.
 */
export async function writeEdit(
  target: EditTarget,
  action: AuditAction,
  request: ConfigEditRequest,
  plan: EditPlan,
): Promise<ConfigEditResult> {
  let lock: ConfigFileLock;
  try {
    lock = await lockConfigFile(target.file);
  } catch (error) {
    if (error instanceof FileSystemError)
      return { ok: false, error: `${error.message}; the config was not changed` };
    throw error;
  }
  try {
    return await commit(target, action, request, plan, lock);
  } finally {
    await lock.release();
  }
}

/**
 * Under the lock: the file must still be the one the edit was planned from, else another writer
 * came first and this edit is stale. Then the backup, the write and the audit record (so that the
 * audit log is in the order of the writes).
 */
async function commit(
  target: EditTarget,
  action: AuditAction,
  request: ConfigEditRequest,
  plan: EditPlan,
  lock: ConfigFileLock,
): Promise<ConfigEditResult> {
  const { file, stateDir, at } = target;
  const { current, previousHash, text, changedPaths } = plan;
  const hash = hashConfigText(text);
  try {
    if (hashConfigText((await readConfigFile(file)) ?? '') !== previousHash)
      return { ok: false, error: STALE_HASH_ERROR };
    if (current.exists) await backupConfigFile(file, current.text, stateDir, at);
    lock.assertHeld();
    await writeConfigFile(file, text);
  } catch (error) {
    if (error instanceof FileSystemError)
      return { ok: false, error: `${error.message}; the config was not changed` };
    throw error;
  }
  const { removedPaths, config } = plan;
  const result = {
    ok: true as const,
    changed: true as const,
    hash,
    previousHash,
    path: file,
    changedPaths,
    removedPaths,
    config,
  };
  const scrub = noteScrubber(target, [current.object, plan.next, config]);
  try {
    await appendConfigAudit(stateDir, {
      ts: at.toISOString(),
      actor: request.actor,
      via: request.via,
      action,
      changedPaths,
      previousHash,
      hash,
      ...(request.note === undefined ? {} : { note: scrub(request.note) }),
      ...(plan.undoes === undefined ? {} : { undoes: plan.undoes }),
    });
  } catch (error) {
    if (!(error instanceof FileSystemError)) throw error;
    return { ...result, warning: `config written, but ${error.message}` };
  }
  return result;
}

/** Secrets of the old and the new config come out of notes too, not only those the logger knows. */
function noteScrubber(target: EditTarget, configs: unknown[]): (text: string) => string {
  const ownScrub = createSecretScrubber(
    configs.flatMap((config) => collectSecretValues(config, target.secretPaths)),
  );
  const { scrub } = target;
  return (text) => ownScrub(scrub ? scrub(text) : text);
}
