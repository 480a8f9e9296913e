import { Type } from '@sinclair/typebox';
import writeFileAtomic from 'write-file-atomic';
import { fail, ok, type Result } from '../../../base/errors/index.js';
import type { Tool } from '../../../engine/tools/index.js';
import { applyOperations, PatchOperations, readPatchable } from './file-patch-operations.js';
import { type BuiltinToolpackOptions, fileFailure, resolveAgentPath } from './paths.js';

const FilePatchParameters = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'File to change with `edits`: /workspace/… (relative paths are in /workspace) or your own /artifacts/<agentId>/….',
      }),
    ),
    edits: Type.Optional(
      Type.Array(
        Type.Object(
          {
            oldText: Type.String({
              minLength: 1,
              description:
                'Exact text to replace (spaces, indentation and line ends included); it must occur exactly once in the file.',
            }),
            newText: Type.String({ description: 'The text that replaces it; empty deletes it.' }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 100,
          description:
            'Replacements in `path`, applied in order, each to the result of the ones before. If any fails, nothing is written.',
        },
      ),
    ),
    operations: Type.Optional(PatchOperations),
  },
  { additionalProperties: false },
);

type Edit = { oldText: string; newText: string };

/**
 * `file.patch`: exact-match replacements. Each `oldText` must occur exactly once at its turn, so an
 * edit never lands in the wrong place; any failure leaves the file untouched. Atomic write.
 */
export function createFilePatchTool(options: BuiltinToolpackOptions): Tool<typeof FilePatchParameters> {
  return {
    name: 'file.patch',
    risk: ['write'],
    description:
      'Change part of an existing text file in your workspace or your own artifacts directory by exact replacements: each oldText must match exactly once (copy it from file.read, with enough surrounding lines to be unique). All edits apply or none. Or, as in Suzumio, give `operations` (add a file, update by search/replace, delete a file), across files, all or none.',
    parameters: FilePatchParameters,
    async execute(input, context) {
      if (input.operations !== undefined) {
        if (input.path !== undefined || input.edits !== undefined)
          return { ok: false, reason: 'give either operations, or path with edits, not both' };
        return applyOperations(options, context.agentId, input.operations);
      }
      if (input.path === undefined || input.edits === undefined)
        return { ok: false, reason: 'give path with edits, or operations' };
      const resolved = await resolveAgentPath(options, context.agentId, input.path, 'write', context);
      if (!resolved.ok) return { ok: false, reason: resolved.error };
      const { virtual, host } = resolved.value;
      const original = await readPatchable(host, virtual);
      if (!original.ok) return { ok: false, reason: original.error };
      if (original.value === undefined)
        return { ok: false, reason: `cannot read ${virtual}: it does not exist` };
      const patched = applyEdits(original.value, input.edits, virtual);
      if (!patched.ok) return { ok: false, reason: patched.error };
      try {
        await writeFileAtomic(host, patched.value, { fsync: true });
      } catch (error) {
        return fileFailure('write', virtual, error);
      }
      return { ok: true, path: virtual, edits: input.edits.length, bytes: Buffer.byteLength(patched.value) };
    },
  };
}

/** Applies the edits in order, or names the first that fails (1-based) and why. */
export function applyEdits(text: string, edits: readonly Edit[], virtual: string): Result<string> {
  let current = text;
  for (const [index, edit] of edits.entries()) {
    const label = edits.length === 1 ? 'the edit' : `edit ${index + 1} of ${edits.length}`;
    const refuse = (why: string) => fail(`${label}: oldText ${why}; nothing was written`);
    const at = current.indexOf(edit.oldText);
    if (at === -1) {
      const crlf = current.includes('\r\n') && /(?<!\r)\n/.test(edit.oldText);
      const hint = crlf ? ' (the file uses CRLF line ends; include the \\r)' : '';
      const earlier = index > 0 ? ' after the edits before it' : '';
      return refuse(`was not found in ${virtual}${earlier}${hint}`);
    }
    const count = countOccurrences(current, edit.oldText);
    if (count > 1) {
      return refuse(`occurs ${count} times in ${virtual}; include more surrounding text so it matches once`);
    }
    // Slices, not String.replace: `$&` and friends in newText stay literal.
    current = current.slice(0, at) + edit.newText + current.slice(at + edit.oldText.length);
  }
  return ok(current);
}

/** Occurrences, overlapping ones included: `aa` is ambiguous in `aaa`. */
function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + 1)) count += 1;
  return count;
}
