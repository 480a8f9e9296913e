import path from 'node:path';
import PQueue from 'p-queue';
import { ConfigError } from '../errors/index.js';
import { diffConfigTexts } from './config-diff.js';
import { writeEdit } from './config-edit-commit.js';
import { type CurrentFile, planEdit, readCurrentFile } from './config-edit-plan.js';
import { undoChange } from './config-edit-restore.js';
import type {
  ConfigChangeView,
  ConfigEditor,
  ConfigEditorOptions,
  ConfigEditPreview,
  ConfigEditRequest,
  ConfigEditResult,
  ConfigSnapshot,
  EditAction,
  EditorState,
} from './config-edit-types.js';
import { FileSystemError } from './config-files.js';
import { findConfigChange, readConfigHistory } from './config-history.js';
import { hashConfigText, parseConfigText } from './load.js';
import { findSecretPaths, redactConfig } from './redact.js';
import { lookupConfigSchema } from './schema-lookup.js';

export { STALE_HASH_ERROR } from './config-edit-plan.js';
export type {
  ConfigChange,
  ConfigChangeView,
  ConfigEditor,
  ConfigEditorOptions,
  ConfigEditPreview,
  ConfigEditRequest,
  ConfigEditResult,
  ConfigSnapshot,
  ConfigUndoRequest,
} from './config-edit-types.js';

/**
 * The config editing pipeline behind the gateway tool, `/config` and `switchboard config`. Edits run
 * one at a time in a process, and each takes a cross-process lock on the file (`<file>.lock`,
 * proper-lockfile) to compare the hash again and write: of two edits made from the same hash
 * exactly one applies, whichever processes make them (the shell CLI and the gateway).
 */
export function createConfigEditor(options: ConfigEditorOptions): ConfigEditor {
  const state: EditorState = {
    options,
    file: path.resolve(options.path),
    stateDir: path.resolve(options.stateDir),
    now: options.now ?? (() => new Date()),
    secretPaths: findSecretPaths(),
  };
  const queue = new PQueue({ concurrency: 1 });
  return {
    snapshot: ((snapshotOptions?: { includeInvalid: true }) =>
      snapshot(state, snapshotOptions)) as ConfigEditor['snapshot'],
    lookupSchema: (lookupPath) => lookupConfigSchema(lookupPath),
    patch: (request) => queue.add(() => edit(state, 'config.patch', request)),
    apply: (request) => queue.add(() => edit(state, 'config.apply', request)),
    preview: (action, request) => preview(state, action, request),
    history: () => readConfigHistory(state.stateDir),
    change: (number) => change(state, number),
    undo: (number, request) => queue.add(() => undoChange(state, number, request)),
  };
}

/** The plan of an edit (checked, dry run included) and its diff; nothing is written. */
async function preview(
  state: EditorState,
  action: EditAction,
  request: ConfigEditRequest,
): Promise<ConfigEditPreview> {
  const planned = await planEdit(state, action, request);
  if (!planned.ok) return planned;
  const plan = planned.value;
  if (!plan.changed) return { ok: true, changed: false, hash: plan.hash };
  const { previousHash, changedPaths, removedPaths } = plan;
  const diff = diffConfigTexts(plan.current.text, plan.text, diffOptions(state));
  return { ok: true, changed: true, previousHash, changedPaths, removedPaths, diff };
}

async function change(state: EditorState, number: number): Promise<ConfigChangeView> {
  let found: Awaited<ReturnType<typeof findConfigChange>>;
  try {
    found = await findConfigChange(state, number);
  } catch (error) {
    if (error instanceof FileSystemError) return { ok: false, error: error.message };
    throw error;
  }
  if (!found.ok) return found;
  const { change: record, before, after } = found.value;
  if (after === undefined) return { ok: true, change: record, diff: '' };
  return { ok: true, change: record, diff: diffConfigTexts(before, after, diffOptions(state)) };
}

function diffOptions(state: EditorState) {
  return { name: path.basename(state.file), secretPaths: state.secretPaths, scrub: state.options.scrub };
}

/**
 * The edit is planned and checked (the dry run may take seconds), then the cross-process lock is
 * taken and the hash compared again before the write, so that another process (the shell CLI, the
 * gateway) cannot write in between.
 */
async function edit(
  state: EditorState,
  action: EditAction,
  request: ConfigEditRequest,
): Promise<ConfigEditResult> {
  const planned = await planEdit(state, action, request);
  if (!planned.ok) return planned;
  const plan = planned.value;
  if (!plan.changed) return { ok: true, changed: false, hash: plan.hash, path: state.file };
  return writeEdit(state, action, request, plan);
}

async function snapshot(
  state: EditorState,
  snapshotOptions?: { includeInvalid: true },
): Promise<ConfigSnapshot | (ConfigSnapshot & { config: Record<string, unknown> })> {
  const { file } = state;
  let current: CurrentFile;
  try {
    current = await readCurrentFile(state);
  } catch (error) {
    if (!(error instanceof FileSystemError)) throw error;
    throw new ConfigError('CONFIG_READ', file, [{ path: '', message: error.message }]);
  }
  const hash = hashConfigText(current.text);
  const config = redactConfig(current.object, state.secretPaths);
  const errors = loadErrors(state, current.text);
  if (errors.length === 0) return { path: file, hash, config };
  return { path: file, hash, valid: false, errors, ...(snapshotOptions?.includeInvalid ? { config } : {}) };
}

/** Why the text would not load, as `<pointer>: <message>` lines; [] when it loads. */
function loadErrors(state: EditorState, text: string): string[] {
  try {
    parseConfigText(text, state.file, state.options.environment);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
  }
}
