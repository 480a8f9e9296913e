import { createHash } from 'node:crypto';
import type { ModelRequest } from './types.js';

/**
 * Tool names on the wire. Our names may contain dots (`schedule.once`), but OpenAI and Anthropic
 * accept only `^[a-zA-Z0-9_-]{1,64}$`. The encoding keeps names
 * readable for the model: `.` becomes `__` (`schedule__once`), any other character the APIs
 * reject becomes `_`, and names that are already valid are sent unchanged.
 *
 * That encoding alone is not reversible for every name (`a__b` and `a.b` both encode to
 * `a__b`), so providers decode through a per-request codec that remembers the names it
 * encoded (the offered tools and the calls in the history): those always decode exactly.
 * Only a name the model invents falls back to `decodeToolName` (`__` → `.`).
 * A name longer than 64 characters after encoding (a long MCP tool name) is shortened the same
 * way every time: its first characters, `_` and a hash of the whole name (`shortWireName`); the
 * codec maps it back. Two names of one request that still meet (`a.b` next to `a__b`): the later one is sent under a
 * shortened name of its own (`_1`, `_2`… in the hash input), so every offered name decodes exactly.
 */

const REJECTED_CHARACTER = /[^a-zA-Z0-9_-]/g;

/** The longest tool name OpenAI and Anthropic accept. */
export const MAX_WIRE_NAME = 64;
const HASH_LENGTH = 10;

export function encodeToolName(name: string): string {
  const wireName = name.replaceAll('.', '__').replace(REJECTED_CHARACTER, '_');
  return wireName.length > MAX_WIRE_NAME ? shortWireName(name, wireName) : wireName;
}

/** The first characters of `wireName`, `_` and 10 hex digits of a hash of `name` (and `salt`): 64 characters. */
function shortWireName(name: string, wireName: string, salt = ''): string {
  const hash = createHash('sha256').update(`${name}${salt}`).digest('hex').slice(0, HASH_LENGTH);
  return `${wireName.slice(0, MAX_WIRE_NAME - HASH_LENGTH - 1)}_${hash}`;
}

/** The context-free inverse of `encodeToolName`, exact for names without `__` and rejected characters. */
export function decodeToolName(wireName: string): string {
  return wireName.replaceAll('__', '.');
}

export interface ToolNameCodec {
  encode(name: string): string;
  decode(wireName: string): string;
}

/** A codec for one request: every name it encoded decodes back to itself. */
export function createToolNameCodec(names: Iterable<string> = []): ToolNameCodec {
  const decoded = new Map<string, string>();
  const encoded = new Map<string, string>();
  const encode = (name: string): string => {
    const known = encoded.get(name);
    if (known !== undefined) return known;
    let wireName = encodeToolName(name);
    // Taken by another name of this request: this one gets a hashed name of its own.
    for (let salt = 1; decoded.has(wireName); salt += 1) wireName = shortWireName(name, wireName, `_${salt}`);
    decoded.set(wireName, name);
    encoded.set(name, wireName);
    return wireName;
  };
  for (const name of names) encode(name);
  return { encode, decode: (wireName) => decoded.get(wireName) ?? decodeToolName(wireName) };
}

/** The codec for a model request: its offered tools first, then the tool names in its history. */
export function createRequestToolNameCodec(request: Pick<ModelRequest, 'tools' | 'messages'>): ToolNameCodec {
  const history = request.messages.flatMap((message) =>
    message.role === 'assistant' ? (message.toolCalls ?? []).map((toolCall) => toolCall.name) : [],
  );
  return createToolNameCodec([...request.tools.map((tool) => tool.name), ...history]);
}
