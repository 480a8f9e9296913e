import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import writeFileAtomic from 'write-file-atomic';
import type { Tool } from '../../../engine/tools/index.js';
import { type BuiltinToolpackOptions, fileFailure, resolveAgentPath } from './paths.js';

/** Largest content one call writes (characters); bigger files are written by the tools that make them. */
export const MAX_WRITE_CHARS = 5_000_000;

const FileWriteParameters = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      description:
        'File to create or replace: /workspace/… (relative paths are in /workspace) or your own /artifacts/<agentId>/….',
    }),
    content: Type.String({
      maxLength: MAX_WRITE_CHARS,
      description: 'The whole new content of the file, as UTF-8 text.',
    }),
    createDirs: Type.Optional(
      Type.Boolean({
        description:
          "Create missing parent directories (Suzumio's key). Without it they are created; with false, a missing parent directory is refused.",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `file.write`: creates or replaces a whole file. Parent directories are created; the write is
 * atomic (temp file, fsync, rename), so readers see the old content or the new, never a part.
 */
export function createFileWriteTool(options: BuiltinToolpackOptions): Tool<typeof FileWriteParameters> {
  return {
    name: 'file.write',
    risk: ['write'],
    description:
      'Create or replace a whole text file in your workspace (/workspace, also relative paths) or your own artifacts directory (/artifacts/<your agent id>/…). Creates missing directories. To change part of a file, use file.patch.',
    parameters: FileWriteParameters,
    async execute(input, context) {
      const resolved = await resolveAgentPath(options, context.agentId, input.path, 'write', context);
      if (!resolved.ok) return { ok: false, reason: resolved.error };
      const { virtual, host } = resolved.value;
      const existing = await stat(host).catch(() => undefined);
      if (existing && !existing.isFile()) return { ok: false, reason: `${virtual} exists and is not a file` };
      if (input.createDirs === false && !(await stat(path.dirname(host)).catch(() => undefined))) {
        return {
          ok: false,
          reason: `the directory of ${virtual} does not exist and createDirs is false; pass createDirs: true to create it`,
        };
      }
      try {
        await mkdir(path.dirname(host), { recursive: true });
        await writeFileAtomic(host, input.content, { fsync: true });
      } catch (error) {
        return fileFailure('write', virtual, error);
      }
      return { ok: true, path: virtual, bytes: Buffer.byteLength(input.content), created: !existing };
    },
  };
}
