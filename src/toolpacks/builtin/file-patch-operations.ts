import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import writeFileAtomic from 'write-file-atomic';
import { StringEnum } from '../../config/index.js';
import { type BuiltinToolpackOptions, fileFailure, resolveAgentPath } from './paths.js';

const MAX_OPERATION_BYTES = 10 * 1024 * 1024;

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
    const current = planned.has(host) ? planned.get(host)?.content : await readText(host);
    if (typeof current === 'object' && current !== null) return refuse(current.error);
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

/** The file's text, undefined when it does not exist, or why it cannot be patched. */
async function readText(host: string): Promise<string | undefined | { error: string }> {
  const stats = await stat(host).catch(() => undefined);
  if (stats === undefined) return undefined;
  if (!stats.isFile()) return { error: 'it is not a regular file' };
  if (stats.size > MAX_OPERATION_BYTES) return { error: `it is over ${MAX_OPERATION_BYTES} bytes` };
  const bytes = await readFile(host);
  if (bytes.includes(0)) return { error: 'it looks binary (it has NUL bytes)' };
  return bytes.toString('utf8');
}
