import type { ConfigIssue } from '../../errors/index.js';
import type { Config } from '../schema/schema.js';
import type { lookupConfigSchema } from '../schema/schema-lookup.js';
import type { ConfigAuditRecord } from './config-files.js';
import type { ProtectedPath } from './tool-guard.js';

export interface ConfigEditorOptions {
  /** Absolute path of the config file; it may not exist yet (then edits create it). */
  path: string;
  /** Absolute state dir: backups in `<stateDir>/config-backups/`, audit in `<stateDir>/config-audit.jsonl`. */
  stateDir: string;
  /** Where `${NAME}` references are read from; a function is asked at each check (the gateway's reads the env file again). */
  environment: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);
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
   * refused naming it, so is a change to a path the schema does not mark `x-agent-editable` and
   * `agentEditable` (the running config's owner list) does not open, a new `${ENV}` reference,
   * and a removal outside replacePaths.
   */
  guard?: { protectedPaths: readonly ProtectedPath[]; agentEditable: readonly string[] };
  /**
   * The edit means to leave the operator (webchat:local) out of `owners`: without it such an edit
   * is refused (operator-lockout.ts).
   */
  allowOperatorLockout?: boolean;
  /**
   * A merge patch an approver adds to this edit (the "always" of its approval, a protected path):
   * merged after the guard has checked the edit, and written with it in one write.
   */
  approverPatch?: Record<string, unknown>;
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

/** An undo: who asks and from which hash; the text written back is the one before the change. */
export type ConfigUndoRequest = Omit<ConfigEditRequest, 'raw' | 'replacePaths' | 'guard'>;

/**
 * A change the audit log records, numbered by its line in `<stateDir>/config-audit.jsonl` (1 is the
 * oldest): a number names the same change for as long as the log is kept.
 */
export interface ConfigChange extends ConfigAuditRecord {
  number: number;
}

/**
 * What an edit would do, planned and checked as the edit itself (validation, dry run) but not
 * written: for an owner to confirm. `diff` is the file's unified diff, secrets redacted.
 */
export type ConfigEditPreview =
  | { ok: true; changed: false; hash: string }
  | {
      ok: true;
      changed: true;
      previousHash: string;
      changedPaths: string[];
      removedPaths: string[];
      diff: string;
    }
  | { ok: false; error: string };

/** One change of the audit log and its diff (secrets redacted); `diff` is '' when the file after it is no longer kept. */
export type ConfigChangeView =
  | { ok: true; change: ConfigChange; diff: string }
  | { ok: false; error: string };

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
  /** The edit `patch` or `apply` would make, checked, with its diff; nothing is written. */
  preview(action: EditAction, request: ConfigEditRequest): Promise<ConfigEditPreview>;
  /** The audit log's records, oldest first, numbered by line. Throws FileSystemError when unreadable. */
  history(): Promise<ConfigChange[]>;
  /** Change `number` of the history and its diff. */
  change(number: number): Promise<ConfigChangeView>;
  /** Writes back the file as it was before change `number` (see config-edit-restore.ts). */
  undo(number: number, request: ConfigUndoRequest): Promise<ConfigEditResult>;
}

export type EditAction = 'config.patch' | 'config.apply';
/** What the audit log records: an edit, or an undo that wrote back the text before a change. */
export type AuditAction = EditAction | 'config.undo';
