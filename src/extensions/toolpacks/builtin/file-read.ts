import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import type { Tool } from '../../../engine/tools/index.js';
import { type BuiltinToolpackOptions, fileFailure, resolveAgentPath } from './paths.js';

/** Text returned per call; below the registry's 100 000-character result cap once JSON-escaped. */
export const MAX_READ_CHARS = 64_000;
const DEFAULT_LINES = 2000;
const MAX_ENTRIES = 500;
/** A NUL byte in the first 8 KiB means binary, as git and grep decide. */
const SNIFF_BYTES = 8192;

const FileReadParameters = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      description:
        'File or directory to read: /workspace/… (relative paths are in /workspace), /uploads/… (files the person you are answering posted in this chat), /artifacts/<agentId>/… or /mnt/<name>/….',
    }),
    offset: Type.Optional(
      Type.Integer({ minimum: 1, description: 'First line to return, counting from 1 (default 1).' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10000,
        description: `Most lines to return (default ${DEFAULT_LINES}); at most ${MAX_READ_CHARS} characters are returned either way.`,
      }),
    ),
    maxBytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: `Most characters of text to return (Suzumio's maxBytes; capped at ${MAX_READ_CHARS}). Whole lines only, unless the first line alone is longer.`,
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `file.read`: a window of lines of a text file, exactly as stored (line ends kept), or a
 * directory's entries. Long files come in pieces: `nextOffset` says where the next call starts.
 */
export function createFileReadTool(options: BuiltinToolpackOptions): Tool<typeof FileReadParameters> {
  return {
    name: 'file.read',
    risk: ['read'],
    description:
      "Read a text file (a window of lines) or list a directory. Reads your workspace (/workspace, also relative paths), the files the person you are answering posted in this chat (/uploads/…), agents' artifacts (/artifacts/<agentId>/…) and the configured read-only mounts (/mnt/<name>/…). When `truncated` is true, call again with `offset: nextOffset`.",
    parameters: FileReadParameters,
    readOnly: true,
    async execute(input, context) {
      const resolved = await resolveAgentPath(options, context.agentId, input.path, 'read', context);
      if (!resolved.ok) return { ok: false, reason: resolved.error };
      try {
        return await readPath(
          resolved.value.virtual,
          resolved.value.host,
          input.offset ?? 1,
          input.limit ?? DEFAULT_LINES,
          Math.min(input.maxBytes ?? MAX_READ_CHARS, MAX_READ_CHARS),
        );
      } catch (error) {
        return fileFailure('read', resolved.value.virtual, error);
      }
    },
  };
}

async function readPath(
  virtual: string,
  host: string,
  offset: number,
  limit: number,
  maxChars: number,
): Promise<unknown> {
  const stats = await stat(host);
  if (stats.isDirectory()) {
    const entries = await readdir(host, { withFileTypes: true });
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    const truncated = names.length > MAX_ENTRIES;
    return { ok: true, path: virtual, type: 'directory', entries: names.slice(0, MAX_ENTRIES), truncated };
  }
  if (!stats.isFile()) return { ok: false, reason: `${virtual} is not a regular file` };
  if (await looksBinary(host)) {
    return { ok: false, reason: `${virtual} looks binary (it has NUL bytes); file.read returns text only` };
  }
  const window = await readLines(host, offset, limit, maxChars);
  if (window.lines === 0 && offset > 1) {
    return {
      ok: false,
      reason: `${virtual} has ${window.total ?? 0} lines; offset ${offset} is past the end`,
    };
  }
  const result = {
    ok: true,
    path: virtual,
    text: window.text,
    fromLine: offset,
    toLine: offset + window.lines - 1,
    truncated: window.nextOffset !== undefined,
  };
  if (window.nextOffset === undefined) return result;
  const note = window.longLine
    ? `line ${offset} is longer than ${maxChars} characters: only its start is shown`
    : `more follows: call file.read with offset ${window.nextOffset}`;
  return { ...result, nextOffset: window.nextOffset, note };
}

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

interface LineWindow {
  text: string;
  /** Lines in `text`, a cut last line counted. */
  lines: number;
  /** The line the next call should start at; absent when the window reaches the end of the file. */
  nextOffset?: number;
  /** The one line returned was longer than the cap and was cut. */
  longLine?: boolean;
  /** Lines in the file; known only when the read reached the end. */
  total?: number;
}

/**
 * Streams the file so that a window deep in a large file costs no more memory than the window.
 * Whole lines only, unless the first line alone is over the cap.
 */
async function readLines(file: string, offset: number, limit: number, maxChars: number): Promise<LineWindow> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  let lineNumber = 1;
  let atLineStart = true;
  let text = '';
  let lineStart = 0;
  let taken = 0;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let start = 0;
      while (start < chunk.length) {
        const end = chunk.indexOf('\n', start);
        const stop = end === -1 ? chunk.length : end + 1;
        if (lineNumber >= offset) {
          if (taken === limit) return { text, lines: taken, nextOffset: lineNumber };
          const piece = chunk.slice(start, stop);
          if (text.length + piece.length > maxChars) {
            if (taken > 0) return { text: text.slice(0, lineStart), lines: taken, nextOffset: lineNumber };
            const cut = (text + piece).slice(0, maxChars);
            return { text: cut, lines: 1, nextOffset: lineNumber + 1, longLine: true };
          }
          text += piece;
          if (end !== -1) {
            taken += 1;
            lineStart = text.length;
          }
        }
        if (end !== -1) lineNumber += 1;
        atLineStart = end !== -1;
        start = stop;
      }
    }
  } finally {
    stream.destroy();
  }
  if (text.length > lineStart) taken += 1;
  return { text, lines: taken, total: lineNumber - (atLineStart ? 1 : 0) };
}
