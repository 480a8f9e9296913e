import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../../errors/index.js';
import { hashConfigText } from '../load.js';
import type { ConfigChange } from './config-edit-types.js';
import {
  AUDIT_FILE,
  BACKUP_DIR,
  BACKUPS_KEPT,
  type ConfigAuditRecord,
  FileSystemError,
  readConfigFile,
} from './config-files.js';

/**
 * The changes the audit log records, numbered by their line (ConfigChange). The texts before and
 * after a change are found by their hashes among the backups and the current file (only the
 * BACKUPS_KEPT newest backups are kept).
 */

/** The texts a change went from and to; `''` for an absent file; `after` undefined when no longer kept. */
export interface ConfigChangeTexts {
  change: ConfigChange;
  before: string;
  after: string | undefined;
}

/** Every readable record of the audit log, oldest first; lines that are not a record are skipped. */
export async function readConfigHistory(stateDir: string): Promise<ConfigChange[]> {
  const file = path.join(stateDir, AUDIT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new FileSystemError(`cannot read the config audit log ${file}`, { cause: error });
  }
  return text.split('\n').flatMap((line, index) => {
    const record = parseRecord(line);
    return record ? [{ ...record, number: index + 1 }] : [];
  });
}

/** The change numbered `number`, with its texts; an error naming what is missing otherwise. */
export async function findConfigChange(
  where: { stateDir: string; file: string },
  number: number,
): Promise<Result<ConfigChangeTexts>> {
  const history = await readConfigHistory(where.stateDir);
  const change = history.find((candidate) => candidate.number === number);
  if (!change) {
    const last = history.at(-1)?.number;
    if (last === undefined) return fail('no config change is recorded yet');
    if (number < last) {
      return fail(`no config change ${number}: line ${number} of ${AUDIT_FILE} is not a change record`);
    }
    return fail(`no config change ${number}; the changes are numbered up to ${last} (see /config history)`);
  }
  const texts = await textsByHash(where);
  const before = change.previousHash === hashConfigText('') ? '' : texts.get(change.previousHash);
  const after = texts.get(change.hash);
  if (before === undefined) {
    return fail(
      `the file before change ${number} is no longer kept (only the ${BACKUPS_KEPT} newest backups are, in ${path.join(where.stateDir, BACKUP_DIR)})`,
    );
  }
  return ok({ change, before, after });
}

/** The config file's backups and its current text, by the hash of their text. */
async function textsByHash(where: { stateDir: string; file: string }): Promise<Map<string, string>> {
  const dir = path.join(where.stateDir, BACKUP_DIR);
  const base = path.basename(where.file);
  const texts = new Map<string, string>();
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!entry.startsWith(`${base}.`) || !entry.endsWith('.bak')) continue;
    const text = await readFile(path.join(dir, entry), 'utf8').catch(() => undefined);
    if (text !== undefined) texts.set(hashConfigText(text), text);
  }
  const current = await readConfigFile(where.file);
  if (current !== undefined) texts.set(hashConfigText(current), current);
  return texts;
}

function parseRecord(line: string): ConfigAuditRecord | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Partial<ConfigAuditRecord>;
  const strings = [record.ts, record.actor, record.via, record.action, record.hash, record.previousHash];
  if (!strings.every((field) => typeof field === 'string') || !Array.isArray(record.changedPaths))
    return undefined;
  return record as ConfigAuditRecord;
}
