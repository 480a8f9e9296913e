import { fail, ok, type Result } from '../errors/index.js';
import { writeEdit } from './config-edit-commit.js';
import { checkText, type EditPlan, type NoChange, readAtHash } from './config-edit-plan.js';
import type { ConfigEditResult, ConfigUndoRequest, EditorState } from './config-edit-types.js';
import { FileSystemError } from './config-files.js';
import { findConfigChange } from './config-history.js';
import { collectDifferences } from './edit-text.js';
import { hashConfigText, parseJsonc } from './load.js';
import { formatConfigPath } from './schema-lookup.js';
import { findRemovals } from './tool-guard.js';

/**
 * `/config undo <n>`: writes back the file as it was before change `n` (its backup's text as it
 * is, comments and all: never re-serialized), through the same steps as an edit: the hash check,
 * validation and the dry run, then the lock, backup, write and an audit record `config.undo`.
 * Undoing change n also undoes every change after it: the whole file goes back.
 */
export async function undoChange(
  state: EditorState,
  number: number,
  request: ConfigUndoRequest,
): Promise<ConfigEditResult> {
  let found: Awaited<ReturnType<typeof findConfigChange>>;
  try {
    found = await findConfigChange(state, number);
  } catch (error) {
    if (error instanceof FileSystemError) return fail(error.message);
    throw error;
  }
  if (!found.ok) return found;
  const { change, before } = found.value;
  if (before === '') {
    return fail(`change ${number} created ${state.file}; there is no earlier file to restore`);
  }
  const planned = await planRestore(state, before, request);
  if (!planned.ok) return planned;
  const plan = planned.value;
  if (!plan.changed) return { ok: true, changed: false, hash: plan.hash, path: state.file };
  return writeEdit(state, 'config.undo', { ...request, raw: '' }, { ...plan, undoes: change.number });
}

async function planRestore(
  state: EditorState,
  text: string,
  request: ConfigUndoRequest,
): Promise<Result<EditPlan | NoChange>> {
  const read = await readAtHash(state, request.baseHash);
  if (!read.ok) return read;
  const { current, previousHash } = read.value;
  if (hashConfigText(text) === previousHash) return ok({ changed: false, hash: previousHash });
  const checked = await checkText(state, text, request.via);
  if (!checked.ok) return checked;
  const next = parseJsonc(text, state.file) as Record<string, unknown>;
  const differences: Parameters<typeof collectDifferences>[3] = [];
  collectDifferences(current.object, next, [], differences);
  return ok({
    changed: true,
    current,
    previousHash,
    next,
    text,
    changedPaths: differences.map((difference) => formatConfigPath(difference.path)),
    removedPaths: findRemovals(current.object, next).map(formatConfigPath),
    config: checked.value,
  });
}
