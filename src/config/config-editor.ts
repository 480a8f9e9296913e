import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import JSON5 from 'json5';
import PQueue from 'p-queue';
import { ConfigError, type ConfigIssue, errorText } from '../errors/index.js';
import {
  appendConfigAudit,
  backupConfigFile,
  type ConfigFileLock,
  FileSystemError,
  lockConfigFile,
  readConfigFile,
  writeConfigFile,
} from './config-files.js';
import { editConfigText, restorePlaceholders } from './edit-text.js';
import { findJsonValueProblem } from './json-limits.js';
import { hashConfigText, parseConfigText, parseJsonc } from './load.js';
import { applyMergePatch, isPlainObject } from './merge-patch.js';
import { collectSecretValues, createSecretScrubber, findSecretPaths, redactConfig } from './redact.js';
import type { Config } from './schema.js';
import { formatConfigPath, lookupConfigSchema, parseConfigPath } from './schema-lookup.js';
import {
  addedEnvReference,
  findRemovals,
  type Parts,
  type ProtectedPath,
  refusedProtectedPath,
} from './tool-guard.js';

export const STALE_HASH_ERROR = 'config changed since last load; re-run config.get and retry';

export interface ConfigEditorOptions {
  /** Absolute path of the config file; it may not exist yet (then edits create it). */
  path: string;
  /** Absolute state dir: backups in `<stateDir>/config-backups/`, audit in `<stateDir>/config-audit.jsonl`. */
  stateDir: string;
  environment: NodeJS.ProcessEnv;
  /** Checks beyond the schema that a config must pass before it is written (the gateway's start check); `via` says who made the edit. Returns issues (JSON pointer + message); [] when fine. */
  dryRun?: (config: Config, path: string, edit: { via: ConfigEditRequest['via'] }) => Promise<ConfigIssue[]>;
  /** Removes secret values from free text (notes) before it reaches the audit log. */
  scrub?: (text: string) => string;
  /**
   * What an absent file stands for (built-in defaults that differ from the schema's, e.g. the
   * packaged toolpacks): the first edit writes it into the new file, so nothing the gateway runs
   * with disappears.
   */
  absentFile?: Record<string, unknown>;
  now?: () => Date;
}

export interface ConfigEditRequest {
  /** A JSON or JSON5 object: the merge patch (patch) or the whole new config (apply). */
  raw: string;
  baseHash: string;
  /** Sender id (`webchat:local`, `slack:U1`) or `cli`. */
  actor: string;
  via: 'tool' | 'command' | 'cli';
  note?: string;
  /**
   * Dot paths whose value the edit replaces whole: a patch array there replaces the array instead
   * of merging by id, and removing keys or array items at or under them is intended. `''` is the root.
   */
  replacePaths?: readonly string[];
  /**
   * The model-facing tool's limits: a change to a protected path (findToolProtectedPaths) is
   * refused naming it, so is a new `${ENV}` reference, and so is a removal outside replacePaths.
   */
  guard?: { protectedPaths: readonly ProtectedPath[] };
}

export type ConfigEditResult =
  | { ok: true; changed: false; hash: string; path: string }
  | {
      ok: true;
      changed: true;
      hash: string;
      previousHash: string;
      path: string;
      changedPaths: string[];
      /** What the edit removed (keys, array items), as dot paths; [] when nothing. */
      removedPaths: string[];
      /** The validated new config, defaults applied, `${ENV}` substituted. */
      config: Config;
      /** Set when the file was written but its audit record could not be. */
      warning?: string;
    }
  | { ok: false; error: string };

/**
 * The file as `config.get` shows it: its own object (no defaults, `${ENV}` references as written),
 * every secret replaced by REDACTED, and the hash of the raw text (of '' when the file is absent).
 * A file that does not load (schema, `${ENV}`, references) shows only its errors: a secret under
 * a misspelled key is not known as a secret, so no part of such a file is shown.
 */
export type ConfigSnapshot =
  | { path: string; hash: string; config: Record<string, unknown> }
  | { path: string; hash: string; valid: false; errors: string[] };

export interface ConfigEditor {
  /**
   * The snapshot; `includeInvalid` adds the redacted object of an invalid file too (for the
   * operator's shell, never the model). Throws ConfigError when the file cannot be read or parsed.
   */
  snapshot(): Promise<ConfigSnapshot>;
  snapshot(options: { includeInvalid: true }): Promise<ConfigSnapshot & { config: Record<string, unknown> }>;
  lookupSchema(path: string): ReturnType<typeof lookupConfigSchema>;
  patch(request: ConfigEditRequest): Promise<ConfigEditResult>;
  apply(request: ConfigEditRequest): Promise<ConfigEditResult>;
}

type Action = 'config.patch' | 'config.apply';

/** A checked edit, ready to be written. */
interface Plan {
  current: { exists: boolean; text: string; object: Record<string, unknown> };
  previousHash: string;
  next: Record<string, unknown>;
  text: string;
  changedPaths: string[];
  removedPaths: string[];
  config: Config;
}

/**
 * The config editing pipeline behind the gateway tool, `/config` and `switchboard config`. Edits run
 * one at a time in a process, and each takes a cross-process lock on the file (`<file>.lock`,
 * proper-lockfile) to compare the hash again and write: of two edits made from the same hash
 * exactly one applies, whichever processes make them (the shell CLI and the gateway).
 */
export function createConfigEditor(options: ConfigEditorOptions): ConfigEditor {
  const file = path.resolve(options.path);
  const stateDir = path.resolve(options.stateDir);
  const now = options.now ?? (() => new Date());
  const secretPaths = findSecretPaths();
  const queue = new PQueue({ concurrency: 1 });

  async function readCurrent(): Promise<{ exists: boolean; text: string; object: Record<string, unknown> }> {
    const text = await readConfigFile(file);
    return {
      exists: text !== undefined,
      text: text ?? '',
      object:
        text === undefined
          ? structuredClone(options.absentFile ?? {})
          : (parseJsonc(text, file) as Record<string, unknown>),
    };
  }

  /**
   * The edit is planned and checked (the dry run may take seconds), then the cross-process lock is
   * taken and the hash compared again before the write, so that another process (the shell CLI, the
   * gateway) cannot write in between. The lock is held only for that short step: a holder that
   * stops refreshing it (a killed process, or one starved of CPU for the stale time) loses it.
   */
  async function edit(action: Action, request: ConfigEditRequest): Promise<ConfigEditResult> {
    const planned = await plan(action, request);
    if (!('text' in planned)) return planned;
    let lock: ConfigFileLock;
    try {
      lock = await lockConfigFile(file);
    } catch (error) {
      if (error instanceof FileSystemError) return failure(`${error.message}; the config was not changed`);
      throw error;
    }
    try {
      return await commit(action, request, planned, lock);
    } finally {
      await lock.release();
    }
  }

  /** Everything short of writing: the new text, checked as a start would load it. */
  async function plan(action: Action, request: ConfigEditRequest): Promise<Plan | ConfigEditResult> {
    let current: Awaited<ReturnType<typeof readCurrent>>;
    try {
      current = await readCurrent();
    } catch (error) {
      if (error instanceof FileSystemError || error instanceof ConfigError) return failure(error.message);
      throw error;
    }
    const previousHash = hashConfigText(current.text);
    if (request.baseHash !== previousHash) return failure(STALE_HASH_ERROR);

    const raw = parseRaw(request.raw);
    if (!raw.ok) return raw;
    const replacePaths = parsePaths(request.replacePaths ?? []);
    if (!replacePaths.ok) return replacePaths;
    const replaced = (at: readonly (string | number)[]) =>
      replacePaths.value.some((parts) => startsWith(at, parts));
    const candidate =
      action === 'config.patch'
        ? applyMergePatch(current.object, raw.value, { replace: replaced })
        : raw.value;
    const restored = restorePlaceholders(candidate as Record<string, unknown>, current.object, secretPaths);
    if (!restored.ok) return restored;
    const next = restored.value;
    const removed = findRemovals(current.object, next);
    if (request.guard) {
      const refused = guardRefusal(current.object, next, request.guard.protectedPaths);
      if (refused !== undefined) return failure(refused);
      const unlisted = removed.filter((at) => !replaced(at));
      if (unlisted.length > 0) {
        return failure(
          `the edit would remove ${unlisted.map(formatConfigPath).join(', ')}; nothing was written. If that is what you want, list each path (or one above it) in replacePaths.`,
        );
      }
    }
    if (isDeepStrictEqual(current.object, next))
      return { ok: true, changed: false, hash: previousHash, path: file };

    let edited: ReturnType<typeof editConfigText>;
    try {
      edited = editConfigText(current.text, next);
    } catch (error) {
      // A file jsonc-parser cannot edit faithfully (duplicate keys): refuse rather than guess.
      return failure(`cannot edit ${file}: ${errorText(error)}`);
    }
    const checked = await check(edited.text, request.via);
    if (!checked.ok) return checked;
    return {
      current,
      previousHash,
      next,
      text: edited.text,
      changedPaths: edited.changedPaths,
      removedPaths: removed.map(formatConfigPath),
      config: checked.config,
    };
  }

  /**
   * Under the lock: the file must still be the one the edit was planned from, else another writer
   * came first and this edit is stale. Then the backup, the write and the audit record (so that the
   * audit log is in the order of the writes).
   */
  async function commit(
    action: Action,
    request: ConfigEditRequest,
    planned: Plan,
    lock: ConfigFileLock,
  ): Promise<ConfigEditResult> {
    const { current, previousHash, text, changedPaths } = planned;
    const hash = hashConfigText(text);
    const at = now();
    try {
      if (hashConfigText((await readConfigFile(file)) ?? '') !== previousHash)
        return failure(STALE_HASH_ERROR);
      if (current.exists) await backupConfigFile(file, current.text, stateDir, at);
      lock.assertHeld();
      await writeConfigFile(file, text);
    } catch (error) {
      if (error instanceof FileSystemError) return failure(`${error.message}; the config was not changed`);
      throw error;
    }
    const result = {
      ok: true as const,
      changed: true as const,
      hash,
      previousHash,
      path: file,
      changedPaths,
      removedPaths: planned.removedPaths,
      config: planned.config,
    };
    const scrub = noteScrubber([current.object, planned.next, planned.config]);
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
      });
    } catch (error) {
      if (!(error instanceof FileSystemError)) throw error;
      return { ...result, warning: `config written, but ${error.message}` };
    }
    return result;
  }

  function guardRefusal(
    previous: Record<string, unknown>,
    next: Record<string, unknown>,
    protectedPaths: readonly ProtectedPath[],
  ): string | undefined {
    const refused = refusedProtectedPath(previous, next, protectedPaths);
    if (refused !== undefined) {
      return `${refused} cannot be changed through the gateway tool; an owner can change it with /config patch or in the file (${file})`;
    }
    const reference = addedEnvReference(previous, next);
    if (reference !== undefined) {
      return `${reference.path} names an environment variable (${reference.reference}), which cannot be done through the gateway tool; an owner can with /config patch or in the file (${file})`;
    }
    return undefined;
  }

  /** Validates the new text exactly as the gateway will load it, then runs the dry run. */
  async function check(
    text: string,
    via: ConfigEditRequest['via'],
  ): Promise<{ ok: true; config: Config } | { ok: false; error: string }> {
    let config: Config;
    try {
      config = parseConfigText(text, file, options.environment);
    } catch (error) {
      if (error instanceof ConfigError) return invalid(error.issues);
      throw error;
    }
    const issues = options.dryRun ? await options.dryRun(config, file, { via }) : [];
    return issues.length > 0 ? invalid(issues) : { ok: true, config };
  }

  /** Why the text would not load, as `<pointer>: <message>` lines; [] when it loads. */
  function loadErrors(text: string): string[] {
    try {
      parseConfigText(text, file, options.environment);
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
    }
  }

  /** Secrets of the old and the new config come out of notes too, not only those the logger knows. */
  function noteScrubber(configs: unknown[]): (text: string) => string {
    const ownScrub = createSecretScrubber(
      configs.flatMap((config) => collectSecretValues(config, secretPaths)),
    );
    return (text) => ownScrub(options.scrub ? options.scrub(text) : text);
  }

  async function snapshot(snapshotOptions?: {
    includeInvalid: true;
  }): Promise<ConfigSnapshot | (ConfigSnapshot & { config: Record<string, unknown> })> {
    let current: Awaited<ReturnType<typeof readCurrent>>;
    try {
      current = await readCurrent();
    } catch (error) {
      if (!(error instanceof FileSystemError)) throw error;
      throw new ConfigError('CONFIG_READ', file, [{ path: '', message: error.message }]);
    }
    const hash = hashConfigText(current.text);
    const config = redactConfig(current.object, secretPaths);
    const errors = loadErrors(current.text);
    if (errors.length === 0) return { path: file, hash, config };
    return { path: file, hash, valid: false, errors, ...(snapshotOptions?.includeInvalid ? { config } : {}) };
  }

  return {
    snapshot: snapshot as ConfigEditor['snapshot'],
    lookupSchema: (lookupPath) => lookupConfigSchema(lookupPath),
    patch: (request) => queue.add(() => edit('config.patch', request)),
    apply: (request) => queue.add(() => edit('config.apply', request)),
  };
}

function parseRaw(raw: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON5.parse(raw);
  } catch (error) {
    return failure(`raw is not valid JSON or JSON5: ${errorText(error)}`);
  }
  if (!isPlainObject(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return failure(`raw must be a JSON object, not ${kind}`);
  }
  const problem = findJsonValueProblem(value);
  if (problem !== undefined) return failure(`raw ${problem.pointer}: ${problem.message}`);
  return { ok: true, value };
}

function parsePaths(paths: readonly string[]): { ok: true; value: Parts[] } | { ok: false; error: string } {
  const value: Parts[] = [];
  for (const dotPath of paths) {
    const parsed = parseConfigPath(dotPath);
    if (!parsed.ok) return failure(`replacePaths: ${parsed.error}`);
    value.push(parsed.parts);
  }
  return { ok: true, value };
}

function startsWith(path: readonly (string | number)[], prefix: readonly (string | number)[]): boolean {
  return prefix.length <= path.length && prefix.every((part, index) => part === path[index]);
}

function invalid(issues: ConfigIssue[]): { ok: false; error: string } {
  const lines = issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
  return failure(`the new config is invalid; nothing was written:\n${lines.join('\n')}`);
}

function failure(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
