import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import PQueue from 'p-queue';
import { ConfigError, errorText, fail, ok, type Result } from '../../errors/index.js';
import { hashConfigText, parseConfigText } from '../load.js';
import { findSecretPaths, redactConfig, type SecretPath } from '../redact.js';
import type { Config } from '../schema/schema.js';
import { formatConfigPath, lookupConfigSchema } from '../schema/schema-lookup.js';
import { diffConfigTexts } from './config-diff.js';
import { writeEdit } from './config-edit-commit.js';
import {
  type CurrentFile,
  type EditPlan,
  invalid,
  type NoChange,
  nextObject,
  readCurrentFile,
  restorePlan,
  STALE_HASH_ERROR,
} from './config-edit-plan.js';
import type {
  AuditAction,
  ConfigChangeView,
  ConfigEditor,
  ConfigEditorOptions,
  ConfigEditPreview,
  ConfigEditRequest,
  ConfigEditResult,
  ConfigSnapshot,
  ConfigUndoRequest,
  EditAction,
} from './config-edit-types.js';
import { FileSystemError } from './config-files.js';
import { findConfigChange, readConfigHistory } from './config-history.js';
import { editConfigText } from './edit-text.js';
import { operatorLockout } from './operator-lockout.js';

/**
 * The config editing pipeline behind the gateway tool, `/config` and `switchboard config`. Edits run
 * one at a time in a process, and each takes a cross-process lock on the file (`<file>.lock`,
 * proper-lockfile) to compare the hash again and write: of two edits made from the same hash
 * exactly one applies, whichever processes make them (the shell CLI and the gateway).
 */
export function createConfigEditor(options: ConfigEditorOptions): ConfigEditor {
  return new ConfigFileEditor(options);
}

/** One config file's editor: its paths, clock and secret paths fixed when made, its edits queued. */
class ConfigFileEditor implements ConfigEditor {
  readonly #options: ConfigEditorOptions;
  /** Absolute. */
  readonly #file: string;
  /** Absolute. */
  readonly #stateDir: string;
  readonly #now: () => Date;
  readonly #secretPaths: SecretPath[] = findSecretPaths();
  /** One edit at a time in this process (the file lock covers other processes). */
  readonly #queue = new PQueue({ concurrency: 1 });

  constructor(options: ConfigEditorOptions) {
    this.#options = options;
    this.#file = path.resolve(options.path);
    this.#stateDir = path.resolve(options.stateDir);
    this.#now = options.now ?? (() => new Date());
  }

  snapshot(): Promise<ConfigSnapshot>;
  snapshot(options: { includeInvalid: true }): Promise<ConfigSnapshot & { config: Record<string, unknown> }>;
  async snapshot(snapshotOptions?: {
    includeInvalid: true;
  }): Promise<ConfigSnapshot | (ConfigSnapshot & { config: Record<string, unknown> })> {
    const file = this.#file;
    let current: CurrentFile;
    try {
      current = await this.#readCurrent();
    } catch (error) {
      if (!(error instanceof FileSystemError)) throw error;
      throw new ConfigError('CONFIG_READ', file, [{ path: '', message: error.message }]);
    }
    const hash = hashConfigText(current.text);
    const config = redactConfig(current.object, this.#secretPaths);
    const errors = this.#loadErrors(current.text);
    if (errors.length === 0) return { path: file, hash, config };
    return { path: file, hash, valid: false, errors, ...(snapshotOptions?.includeInvalid ? { config } : {}) };
  }

  lookupSchema(lookupPath: string): ReturnType<typeof lookupConfigSchema> {
    return lookupConfigSchema(lookupPath);
  }

  /** Bound (like `apply`): callers pick one of the two as a function value. */
  readonly patch = (request: ConfigEditRequest): Promise<ConfigEditResult> =>
    this.#queue.add(() => this.#edit('config.patch', request));

  readonly apply = (request: ConfigEditRequest): Promise<ConfigEditResult> =>
    this.#queue.add(() => this.#edit('config.apply', request));

  /** The plan of an edit (checked, dry run included) and its diff; nothing is written. */
  async preview(action: EditAction, request: ConfigEditRequest): Promise<ConfigEditPreview> {
    const planned = await this.#plan(action, request);
    if (!planned.ok) return planned;
    const plan = planned.value;
    if (!plan.changed) return { ok: true, changed: false, hash: plan.hash };
    const { previousHash, changedPaths, removedPaths } = plan;
    const diff = diffConfigTexts(plan.current.text, plan.text, this.#diffOptions());
    return { ok: true, changed: true, previousHash, changedPaths, removedPaths, diff };
  }

  history() {
    return readConfigHistory(this.#stateDir);
  }

  async change(number: number): Promise<ConfigChangeView> {
    let found: Awaited<ReturnType<typeof findConfigChange>>;
    try {
      found = await findConfigChange({ stateDir: this.#stateDir, file: this.#file }, number);
    } catch (error) {
      if (error instanceof FileSystemError) return { ok: false, error: error.message };
      throw error;
    }
    if (!found.ok) return found;
    const { change: record, before, after } = found.value;
    if (after === undefined) return { ok: true, change: record, diff: '' };
    return { ok: true, change: record, diff: diffConfigTexts(before, after, this.#diffOptions()) };
  }

  undo(number: number, request: ConfigUndoRequest): Promise<ConfigEditResult> {
    return this.#queue.add(() => this.#undo(number, request));
  }

  /**
   * The edit is planned and checked (the dry run may take seconds), then the cross-process lock is
   * taken and the hash compared again before the write, so that another process (the shell CLI, the
   * gateway) cannot write in between.
   */
  async #edit(action: EditAction, request: ConfigEditRequest): Promise<ConfigEditResult> {
    const planned = await this.#plan(action, request);
    if (!planned.ok) return planned;
    const plan = planned.value;
    if (!plan.changed) return { ok: true, changed: false, hash: plan.hash, path: this.#file };
    return this.#write(action, request, plan);
  }

  /** Everything short of writing: the new text, checked as a start would load it. */
  async #plan(action: EditAction, request: ConfigEditRequest): Promise<Result<EditPlan | NoChange>> {
    const file = this.#file;
    const read = await this.#readAtHash(request.baseHash);
    if (!read.ok) return read;
    const { current, previousHash } = read.value;
    const next = nextObject(action, request, current.object, { file, secretPaths: this.#secretPaths });
    if (!next.ok) return next;
    const { object, removed } = next.value;
    if (isDeepStrictEqual(current.object, object)) {
      return ok({ changed: false, hash: previousHash });
    }
    let edited: ReturnType<typeof editConfigText>;
    try {
      edited = editConfigText(current.text, object);
    } catch (error) {
      // A file jsonc-parser cannot edit faithfully (duplicate keys): refuse rather than guess.
      return fail(`cannot edit ${file}: ${errorText(error)}`);
    }
    const checked = await this.#check(edited.text, request.via);
    if (!checked.ok) return checked;
    const lockout = request.allowOperatorLockout ? undefined : operatorLockout(current.object, checked.value);
    if (lockout !== undefined) return fail(lockout);
    return ok({
      changed: true,
      current,
      previousHash,
      next: object,
      text: edited.text,
      changedPaths: edited.changedPaths,
      removedPaths: removed.map(formatConfigPath),
      config: checked.value,
    });
  }

  /**
   * `/config undo <n>`: writes back the file as it was before change `n` (its backup's text as it
   * is, comments and all: never re-serialized), through the same steps as an edit: the hash check,
   * validation and the dry run, then the lock, backup, write and an audit record `config.undo`.
   * Undoing change n also undoes every change after it: the whole file goes back.
   */
  async #undo(number: number, request: ConfigUndoRequest): Promise<ConfigEditResult> {
    let found: Awaited<ReturnType<typeof findConfigChange>>;
    try {
      found = await findConfigChange({ stateDir: this.#stateDir, file: this.#file }, number);
    } catch (error) {
      if (error instanceof FileSystemError) return fail(error.message);
      throw error;
    }
    if (!found.ok) return found;
    const { change, before } = found.value;
    if (before === '') {
      return fail(`change ${number} created ${this.#file}; there is no earlier file to restore`);
    }
    const read = await this.#readAtHash(request.baseHash);
    if (!read.ok) return read;
    const { current, previousHash } = read.value;
    if (hashConfigText(before) === previousHash)
      return { ok: true, changed: false, hash: previousHash, path: this.#file };
    const checked = await this.#check(before, request.via);
    if (!checked.ok) return checked;
    const plan = restorePlan(current, previousHash, before, { file: this.#file, config: checked.value });
    return this.#write('config.undo', { ...request, raw: '' }, { ...plan, undoes: change.number });
  }

  #write(action: AuditAction, request: ConfigEditRequest, plan: EditPlan): Promise<ConfigEditResult> {
    const target = {
      file: this.#file,
      stateDir: this.#stateDir,
      at: this.#now(),
      secretPaths: this.#secretPaths,
      scrub: this.#options.scrub,
    };
    return writeEdit(target, action, request, plan);
  }

  #readCurrent(): Promise<CurrentFile> {
    return readCurrentFile(this.#file, this.#options.absentFile);
  }

  /** The file as it is now and its hash, refused (STALE_HASH_ERROR) unless the hash is `baseHash`. */
  async #readAtHash(baseHash: string): Promise<Result<{ current: CurrentFile; previousHash: string }>> {
    let current: CurrentFile;
    try {
      current = await this.#readCurrent();
    } catch (error) {
      if (error instanceof FileSystemError || error instanceof ConfigError) return fail(error.message);
      throw error;
    }
    const previousHash = hashConfigText(current.text);
    if (baseHash !== previousHash) return fail(STALE_HASH_ERROR);
    return ok({ current, previousHash });
  }

  /** Validates the new text exactly as the gateway will load it, then runs the dry run. */
  async #check(text: string, via: ConfigEditRequest['via']): Promise<Result<Config>> {
    const { dryRun } = this.#options;
    let config: Config;
    try {
      config = parseConfigText(text, this.#file, this.#environment());
    } catch (error) {
      if (error instanceof ConfigError) return invalid(error.issues, error.hint);
      throw error;
    }
    const issues = dryRun ? await dryRun(config, this.#file, { via }) : [];
    return issues.length > 0 ? invalid(issues) : ok(config);
  }

  #environment(): NodeJS.ProcessEnv {
    const { environment } = this.#options;
    return typeof environment === 'function' ? environment() : environment;
  }

  #diffOptions() {
    return { name: path.basename(this.#file), secretPaths: this.#secretPaths, scrub: this.#options.scrub };
  }

  /** Why the text would not load, as `<pointer>: <message>` lines; [] when it loads. */
  #loadErrors(text: string): string[] {
    try {
      parseConfigText(text, this.#file, this.#environment());
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
    }
  }
}
