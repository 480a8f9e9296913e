import type { ModelRequest } from './types.js';

/**
 * Tool names on the wire. Our names may contain dots (`schedule.once`), but OpenAI accepts
 * only `^[a-zA-Z0-9_-]+$` and Anthropic `^[a-zA-Z0-9_-]{1,64}$`. The encoding keeps names
 * readable for the model: `.` becomes `__` (`schedule__once`), any other character the APIs
 * reject becomes `_`, and names that are already valid are sent unchanged.
 *
 * That encoding alone is not reversible for every name (`a__b` and `a.b` both encode to
 * `a__b`), so providers decode through a per-request codec that remembers the names it
 * encoded (the offered tools and the calls in the history): those always decode exactly.
 * Only a name the model invents falls back to `decodeToolName` (`__` → `.`). Two offered
 * names with the same encoding (`a.b` next to `a__b`) cannot both be told apart: the first wins.
 * Names longer than 64 characters after encoding are sent as they are and the API rejects them.
 */

const REJECTED_CHARACTER = /[^a-zA-Z0-9_-]/g;

export function encodeToolName(name: string): string {
  return name.replaceAll('.', '__').replace(REJECTED_CHARACTER, '_');
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
  const encode = (name: string): string => {
    const wireName = encodeToolName(name);
    if (!decoded.has(wireName)) decoded.set(wireName, name);
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
