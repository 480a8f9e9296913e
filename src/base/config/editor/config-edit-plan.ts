import JSON5 from 'json5';
import { type ConfigIssue, errorText, fail, ok, type Result } from '../../errors/index.js';
import { findJsonValueProblem } from '../json-limits.js';
import { parseJsonc } from '../load.js';
import type { SecretPath } from '../redact.js';
import type { Config } from '../schema/schema.js';
import { formatConfigPath, parseConfigPath } from '../schema/schema-lookup.js';
import { agentEditRefusal, ownerWays, refusedAgentEdit } from './agent-editable.js';
import type { ConfigEditRequest, EditAction } from './config-edit-types.js';
import { readConfigFile } from './config-files.js';
import { collectDifferences, restorePlaceholders } from './edit-text.js';
import { applyMergePatch, isPlainObject } from './merge-patch.js';
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

/** The file as it is now; `absentFile` stands for a file that does not exist. */
export async function readCurrentFile(
  file: string,
  absentFile: Record<string, unknown> | undefined,
): Promise<CurrentFile> {
  const text = await readConfigFile(file);
  return {
    exists: text !== undefined,
    text: text ?? '',
    object:
      text === undefined
        ? structuredClone(absentFile ?? {})
        : (parseJsonc(text, file) as Record<string, unknown>),
  };
}

/**
 * The object the edit asks for (secrets put back), refused when the tool's guard forbids it.
 * `file` only names the file in a refusal.
 */
export function nextObject(
  action: EditAction,
  request: ConfigEditRequest,
  previous: Record<string, unknown>,
  where: { file: string; secretPaths: SecretPath[] },
): Result<{ object: Record<string, unknown>; removed: Parts[] }> {
  const raw = parseRaw(request.raw);
  if (!raw.ok) return raw;
  const replacePaths = parsePaths(request.replacePaths ?? []);
  if (!replacePaths.ok) return replacePaths;
  const replaced = (at: readonly (string | number)[]) =>
    replacePaths.value.some((parts) => startsWith(at, parts));
  const candidate =
    action === 'config.patch' ? applyMergePatch(previous, raw.value, { replace: replaced }) : raw.value;
  const restored = restorePlaceholders(candidate as Record<string, unknown>, previous, where.secretPaths);
  if (!restored.ok) return restored;
  const object = restored.value;
  const removed = findRemovals(previous, object);
  if (request.guard) {
    const refused = guardRefusal(where.file, previous, object, request.guard);
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

/** A refusal listing why the new config does not load. */
export function invalid(issues: ConfigIssue[], hint?: string): { ok: false; error: string } {
  const lines = issues.map((issue) => `${issue.path || '/'}: ${issue.message}`);
  if (hint) lines.push(hint);
  return fail(`the new config is invalid; nothing was written:\n${lines.join('\n')}`);
}

/** `/config undo`'s plan: the text before a change, written back as it is (never re-serialized). */
export function restorePlan(
  current: CurrentFile,
  previousHash: string,
  text: string,
  checked: { file: string; config: Config },
): EditPlan {
  const next = parseJsonc(text, checked.file) as Record<string, unknown>;
  const differences: Parameters<typeof collectDifferences>[3] = [];
  collectDifferences(current.object, next, [], differences);
  return {
    changed: true,
    current,
    previousHash,
    next,
    text,
    changedPaths: differences.map((difference) => formatConfigPath(difference.path)),
    removedPaths: findRemovals(current.object, next).map(formatConfigPath),
    config: checked.config,
  };
}
