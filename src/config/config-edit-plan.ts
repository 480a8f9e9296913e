import { isDeepStrictEqual } from 'node:util';
import JSON5 from 'json5';
import { ConfigError, type ConfigIssue, errorText, fail, ok, type Result } from '../errors/index.js';
import { agentEditRefusal, ownerWays, refusedAgentEdit } from './agent-editable.js';
import type { ConfigEditRequest, EditAction, EditorState } from './config-edit-types.js';
import { FileSystemError, readConfigFile } from './config-files.js';
import { editConfigText, restorePlaceholders } from './edit-text.js';
import { findJsonValueProblem } from './json-limits.js';
import { hashConfigText, parseConfigText, parseJsonc } from './load.js';
import { applyMergePatch, isPlainObject } from './merge-patch.js';
import type { Config } from './schema.js';
import { formatConfigPath, parseConfigPath } from './schema-lookup.js';
import { addedEnvReference, findRemovals, type Parts, refusedProtectedPath } from './tool-guard.js';

export const STALE_HASH_ERROR = 'config changed since last load; re-run config.get and retry';

/** The file as it is now: `object` is the absent file's stand-in when there is none. */
export interface CurrentFile {
  exists: boolean;
  text: string;
  object: Record<string, unknown>;
}

/** A checked edit, ready to be written. */
export interface EditPlan {
  changed: true;
  current: CurrentFile;
  previousHash: string;
  next: Record<string, unknown>;
  text: string;
  changedPaths: string[];
  removedPaths: string[];
  config: Config;
  /** For `/config undo`: the audit number of the change whose previous text this writes back. */
  undoes?: number;
}

/** An edit that changes nothing: done, nothing to write. */
export interface NoChange {
  changed: false;
  hash: string;
}

export async function readCurrentFile(state: EditorState): Promise<CurrentFile> {
  const text = await readConfigFile(state.file);
  return {
    exists: text !== undefined,
    text: text ?? '',
    object:
      text === undefined
        ? structuredClone(state.options.absentFile ?? {})
        : (parseJsonc(text, state.file) as Record<string, unknown>),
  };
}

/** The file as it is now and its hash, refused (STALE_HASH_ERROR) unless the hash is `baseHash`. */
export async function readAtHash(
  state: EditorState,
  baseHash: string,
): Promise<Result<{ current: CurrentFile; previousHash: string }>> {
  let current: CurrentFile;
  try {
    current = await readCurrentFile(state);
  } catch (error) {
    if (error instanceof FileSystemError || error instanceof ConfigError) return fail(error.message);
    throw error;
  }
  const previousHash = hashConfigText(current.text);
  if (baseHash !== previousHash) return fail(STALE_HASH_ERROR);
  return ok({ current, previousHash });
}

/** Everything short of writing: the new text, checked as a start would load it. */
export async function planEdit(
  state: EditorState,
  action: EditAction,
  request: ConfigEditRequest,
): Promise<Result<EditPlan | NoChange>> {
  const { file } = state;
  const read = await readAtHash(state, request.baseHash);
  if (!read.ok) return read;
  const { current, previousHash } = read.value;
  const next = nextObject(state, action, request, current.object);
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
  const checked = await checkText(state, edited.text, request.via);
  if (!checked.ok) return checked;
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

/** The object the edit asks for (secrets put back), refused when the tool's guard forbids it. */
function nextObject(
  state: EditorState,
  action: EditAction,
  request: ConfigEditRequest,
  previous: Record<string, unknown>,
): Result<{ object: Record<string, unknown>; removed: Parts[] }> {
  const raw = parseRaw(request.raw);
  if (!raw.ok) return raw;
  const replacePaths = parsePaths(request.replacePaths ?? []);
  if (!replacePaths.ok) return replacePaths;
  const replaced = (at: readonly (string | number)[]) =>
    replacePaths.value.some((parts) => startsWith(at, parts));
  const candidate =
    action === 'config.patch' ? applyMergePatch(previous, raw.value, { replace: replaced }) : raw.value;
  const restored = restorePlaceholders(candidate as Record<string, unknown>, previous, state.secretPaths);
  if (!restored.ok) return restored;
  const object = restored.value;
  const removed = findRemovals(previous, object);
  if (request.guard) {
    const refused = guardRefusal(state.file, previous, object, request.guard);
    if (refused !== undefined) return fail(refused);
    const unlisted = removed.filter((at) => !replaced(at));
    if (unlisted.length > 0) {
      return fail(
        `the edit would remove ${unlisted.map(formatConfigPath).join(', ')}; nothing was written. If that is what you want, list each path (or one above it) in replacePaths.`,
      );
    }
  }
  if (request.approverPatch === undefined) return ok({ object, removed });
  // The approver's own part, past the guard (which is the model's limit, not the approver's).
  return ok({ object: applyMergePatch(object, request.approverPatch) as Record<string, unknown>, removed });
}

/**
 * The tool's refusal, first found first: a protected path (shut whatever an owner opened), then a
 * path the model may not edit (the allow list: agent-editable.ts), then a new `${ENV}` reference.
 */
function guardRefusal(
  file: string,
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
  guard: NonNullable<ConfigEditRequest['guard']>,
): string | undefined {
  const refused = refusedProtectedPath(previous, next, guard.protectedPaths);
  if (refused !== undefined)
    return `${refused} cannot be changed through the gateway tool; ${ownerWays(file)}`;
  const notEditable = refusedAgentEdit(previous, next, guard.agentEditable);
  if (notEditable !== undefined) return agentEditRefusal(notEditable, file);
  const reference = addedEnvReference(previous, next);
  if (reference !== undefined) {
    return `${reference.path} names an environment variable (${reference.reference}), which cannot be done through the gateway tool; an owner can with /config patch or in the file (${file})`;
  }
  return undefined;
}

/** Validates the new text exactly as the gateway will load it, then runs the dry run. */
export async function checkText(
  state: EditorState,
  text: string,
  via: ConfigEditRequest['via'],
): Promise<Result<Config>> {
  const { file, options } = state;
  let config: Config;
  try {
    config = parseConfigText(text, file, options.environment);
  } catch (error) {
    if (error instanceof ConfigError) return invalid(error.issues);
    throw error;
  }
  const issues = options.dryRun ? await options.dryRun(config, file, { via }) : [];
  return issues.length > 0 ? invalid(issues) : ok(config);
}

function parseRaw(raw: string): Result<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON5.parse(raw);
  } catch (error) {
    return fail(`raw is not valid JSON or JSON5: ${errorText(error)}`);
  }
  if (!isPlainObject(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return fail(`raw must be a JSON object, not ${kind}`);
  }
  const problem = findJsonValueProblem(value);
  if (problem !== undefined) return fail(`raw ${problem.pointer}: ${problem.message}`);
  return ok(value);
}

function parsePaths(paths: readonly string[]): Result<Parts[]> {
  const value: Parts[] = [];
  for (const dotPath of paths) {
    const parsed = parseConfigPath(dotPath);
    if (!parsed.ok) return fail(`replacePaths: ${parsed.error}`);
    value.push(parsed.value);
  }
  return ok(value);
}

function startsWith(path: readonly (string | number)[], prefix: readonly (string | number)[]): boolean {
  return prefix.length <= path.length && prefix.every((part, index) => part === path[index]);
}

function invalid(issues: ConfigIssue[]): { ok: false; error: string } {
  const lines = issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
  return fail(`the new config is invalid; nothing was written:\n${lines.join('\n')}`);
}
