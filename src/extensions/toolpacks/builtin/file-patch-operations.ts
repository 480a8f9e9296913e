import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import writeFileAtomic from 'write-file-atomic';
import { StringEnum } from '../../../base/config/index.js';
import { fail, ok, type Result } from '../../../base/errors/index.js';
import { type BuiltinToolpackOptions, fileFailure, resolveAgentPath } from './paths.js';

/** The largest file `file.patch` edits, by `edits` or `operations`. */
export const MAX_PATCH_BYTES = 10 * 1024 * 1024;

/** Suzumio's `file.patch` `operations`, beside Switchboard's `edits`. */
export const PatchOperations = Type.Array(
  Type.Object(
    {
      op: StringEnum(['add', 'update', 'delete'] as const, {
        description:
          '`add` creates a file (it must not exist), `update` replaces text, `delete` removes a file.',
      }),
      path: Type.String({
        minLength: 1,
        description:
          'The file: /workspace/… (relative paths are in /workspace) or your own /artifacts/<agentId>/….',
      }),
      content: Type.Optional(Type.String({ description: 'The new file’s content (add).' })),
      search: Type.Optional(
        Type.String({
          minLength: 1,
          description: 'Exact text to replace (update); must occur exactly once unless replaceAll.',
        }),
      ),
      replace: Type.Optional(
        Type.String({ description: 'The replacement text (update); empty deletes the text.' }),
      ),
      replaceAll: Type.Optional(
        Type.Boolean({ description: 'Replace every occurrence of search instead of exactly one (update).' }),
      ),
      createDirs: Type.Optional(Type.Boolean({ description: 'Create missing parent directories (add).' })),
    },
    { additionalProperties: false },
  ),
  {
    minItems: 1,
    maxItems: 100,
    description:
      "Suzumio's patch operations, applied in order (each sees the ones before); if any fails, nothing is written.",
  },
);

type Operation = Static<typeof PatchOperations>[number];

/** A file as the operations so far left it: its text, or null once deleted. */
interface Planned {
  virtual: string;
  content: string | null;
  createDirs: boolean;
}

/**
 * Runs the operations in memory first (each naming its number when it fails), then writes every
 * changed file (atomic writes, deletes): a failed operation leaves every file untouched.
 */
export async function applyOperations(
  options: BuiltinToolpackOptions,
  agentId: string,
  operations: readonly Operation[],
): Promise<unknown> {
  const planned = new Map<string, Planned>();
  for (const [index, operation] of operations.entries()) {
    const label = `operation ${index + 1} of ${operations.length} (${operation.op} ${operation.path})`;
    const refuse = (why: string) => ({ ok: false, reason: `${label}: ${why}; nothing was written` });
    const resolved = await resolveAgentPath(options, agentId, operation.path, 'write');
    if (!resolved.ok) return refuse(resolved.error);
    const { virtual, host } = resolved.value;
    let current: string | null | undefined;
    if (planned.has(host)) current = planned.get(host)?.content;
    else {
      const read = await readPatchable(host, virtual);
      if (!read.ok) return refuse(read.error);
      current = read.value;
    }
    if (operation.op === 'add') {
      if (typeof current === 'string') return refuse(`${virtual} exists; use op update or delete`);
      if (!operation.createDirs && !(await stat(path.dirname(host)).catch(() => undefined)))
        return refuse(`the directory of ${virtual} does not exist; pass createDirs: true`);
      planned.set(host, {
        virtual,
        content: operation.content ?? '',
        createDirs: operation.createDirs === true,
      });
      continue;
    }
    if (typeof current !== 'string') return refuse(`${virtual} does not exist`);
    if (operation.op === 'delete') {
      planned.set(host, { virtual, content: null, createDirs: false });
      continue;
    }
    if (operation.search === undefined) return refuse('an update needs search (and replace)');
    const count = current.split(operation.search).length - 1;
    if (count === 0) return refuse(`search was not found in ${virtual}`);
    if (count > 1 && !operation.replaceAll)
      return refuse(
        `search occurs ${count} times in ${virtual}; include more text, or pass replaceAll: true`,
      );
    const replacement = operation.replace ?? '';
    // split/join, not String.replace: `$&` and friends in the replacement stay literal.
    const parts = current.split(operation.search);
    const next = operation.replaceAll
      ? parts.join(replacement)
      : parts[0] + replacement + parts.slice(1).join(operation.search);
    // An update of a file an earlier add creates keeps that add's createDirs.
    planned.set(host, { virtual, content: next, createDirs: planned.get(host)?.createDirs ?? false });
  }
  for (const [host, file] of planned) {
    try {
      if (file.content === null) await rm(host, { force: true });
      else {
        if (file.createDirs) await mkdir(path.dirname(host), { recursive: true });
        await writeFileAtomic(host, file.content, { fsync: true });
      }
    } catch (error) {
      return fileFailure('write', file.virtual, error);
    }
  }
  return {
    ok: true,
    operations: operations.length,
    files: [...planned.values()].map((file) => file.virtual),
  };
}

/**
 * The text of a file to patch, undefined when it does not exist, or why it cannot be patched (not a
 * regular file, over MAX_PATCH_BYTES, binary): `edits` and `operations` read files alike.
 */
export async function readPatchable(host: string, virtual: string): Promise<Result<string | undefined>> {
  let bytes: Buffer;
  try {
    const stats = await stat(host);
    if (!stats.isFile()) return fail(`${virtual} is not a regular file`);
    if (stats.size > MAX_PATCH_BYTES)
      return fail(`${virtual} is ${stats.size} bytes; file.patch edits files up to ${MAX_PATCH_BYTES}`);
    bytes = await readFile(host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail(fileFailure('read', virtual, error).reason);
  }
  if (bytes.includes(0)) return fail(`${virtual} looks binary (it has NUL bytes)`);
  return ok(bytes.toString('utf8'));
}
