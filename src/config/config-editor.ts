import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import JSON5 from 'json5';
import PQueue from 'p-queue';
import { ConfigError, type ConfigIssue } from '../errors/index.js';
import {
  appendConfigAudit,
  backupConfigFile,
  FileSystemError,
  readConfigFile,
  writeConfigFile,
} from './config-files.js';
import { editConfigText, refusedProtectedPath, restorePlaceholders } from './edit-text.js';
import { hashConfigText, parseConfigText, parseJsonc } from './load.js';
import { applyMergePatch, isPlainObject } from './merge-patch.js';
import { collectSecretValues, createSecretScrubber, findSecretPaths, redactConfig } from './redact.js';
import type { Config } from './schema.js';
import { lookupConfigSchema } from './schema-lookup.js';

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
  /** Paths that may not change (the tool passes ['owners', 'http', 'commands']); a change at or under one is refused naming it. */
  protectedPaths?: readonly string[];
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
      /** The validated new config, defaults applied, `${ENV}` substituted. */
      config: Config;
      /** Set when the file was written but its audit record could not be. */
      warning?: string;
    }
  | { ok: false; error: string };

export interface ConfigEditor {
  /** The file's own object (no defaults, `${ENV}` references as written), every secret replaced by REDACTED; hash of the raw text ('' → hash of '' when the file is absent). Throws ConfigError when the file cannot be read or parsed. */
  snapshot(): Promise<{ path: string; hash: string; config: Record<string, unknown> }>;
  lookupSchema(path: string): ReturnType<typeof lookupConfigSchema>;
  patch(request: ConfigEditRequest): Promise<ConfigEditResult>;
  apply(request: ConfigEditRequest): Promise<ConfigEditResult>;
}

type Action = 'config.patch' | 'config.apply';

/**
 * The config editing pipeline behind the gateway tool, `/config` and `switchboard config`. Edits run
 * one at a time, so of two edits made from the same hash exactly one applies. Only one editor
 * should exist per config file in a process; another process (the CLI) is caught by the hash check
 * except in the moment between its read and its write.
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

  async function edit(action: Action, request: ConfigEditRequest): Promise<ConfigEditResult> {
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
    const candidate = action === 'config.patch' ? applyMergePatch(current.object, raw.value) : raw.value;
    const restored = restorePlaceholders(candidate as Record<string, unknown>, current.object, secretPaths);
    if (!restored.ok) return restored;
    const next = restored.value;

    const refused = refusedProtectedPath(current.object, next, request.protectedPaths ?? []);
    if (refused !== undefined) {
      return failure(
        `${refused} cannot be changed through the gateway tool; an owner can change it with /config patch or in the file (${file})`,
      );
    }
    if (isDeepStrictEqual(current.object, next))
      return { ok: true, changed: false, hash: previousHash, path: file };

    let edited: ReturnType<typeof editConfigText>;
    try {
      edited = editConfigText(current.text, next);
    } catch (error) {
      // A file jsonc-parser cannot edit faithfully (duplicate keys): refuse rather than guess.
      return failure(`cannot edit ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { text, changedPaths } = edited;
    const checked = await check(text, request.via);
    if (!checked.ok) return checked;
    const hash = hashConfigText(text);
    const at = now();
    try {
      if (current.exists) await backupConfigFile(file, current.text, stateDir, at);
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
    };
    const scrub = noteScrubber([current.object, next, checked.config]);
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
      return { ...result, config: checked.config, warning: `config written, but ${error.message}` };
    }
    return { ...result, config: checked.config };
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

  /** Secrets of the old and the new config come out of notes too, not only those the logger knows. */
  function noteScrubber(configs: unknown[]): (text: string) => string {
    const ownScrub = createSecretScrubber(
      configs.flatMap((config) => collectSecretValues(config, secretPaths)),
    );
    return (text) => ownScrub(options.scrub ? options.scrub(text) : text);
  }

  return {
    async snapshot() {
      let current: Awaited<ReturnType<typeof readCurrent>>;
      try {
        current = await readCurrent();
      } catch (error) {
        if (!(error instanceof FileSystemError)) throw error;
        throw new ConfigError('CONFIG_READ', file, [{ path: '', message: error.message }]);
      }
      return {
        path: file,
        hash: hashConfigText(current.text),
        config: redactConfig(current.object, secretPaths),
      };
    },
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
    return failure(
      `raw is not valid JSON or JSON5: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isPlainObject(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return failure(`raw must be a JSON object, not ${kind}`);
  }
  return { ok: true, value };
}

function invalid(issues: ConfigIssue[]): { ok: false; error: string } {
  const lines = issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
  return failure(`the new config is invalid; nothing was written:\n${lines.join('\n')}`);
}

function failure(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
