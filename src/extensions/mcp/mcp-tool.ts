import type { TSchema } from '@sinclair/typebox';
import type { RiskClass, Tool } from '../../engine/tools/index.js';

/** What an MCP server says of one tool (`tools/list`), the part Switchboard reads. */
export interface McpToolInfo {
  name: string;
  description?: string | undefined;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean | undefined; openWorldHint?: boolean | undefined } | undefined;
}

/** One call's result as the server sent it (`tools/call`). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** How a tool reaches its server: refuses with a readable reason while the server is not ready. */
export interface McpCaller {
  call(tool: string, input: object, signal: AbortSignal): Promise<McpCallResult>;
  /** Why the server's tools cannot run now (it is not connected), or undefined while they can. */
  unavailable(): string | undefined;
}

const UNSAFE_PART = /[^A-Za-z0-9_-]+/g;

/**
 * `mcp.<server>.<tool>`: characters the tool-name pattern refuses (and `__`, the providers' encoding
 * of `.`) become one `_`. Two names that meet after this are told apart by the caller.
 */
export function mcpToolName(server: string, tool: string): string {
  const part = tool.replace(UNSAFE_PART, '_').replace(/_{2,}/g, '_') || 'tool';
  return `mcp.${server}.${part}`;
}

/**
 * The risk classes of an MCP tool: the server's configured `risk`, else derived conservatively from
 * annotations the server itself claims. Read-only reads (and reaches the network unless it says it
 * stays in a closed world); anything else may also write, and reaches the network unless
 * `openWorldHint` is false.
 */
export function mcpToolRisk(info: McpToolInfo, configured: readonly RiskClass[] | undefined): RiskClass[] {
  if (configured) return [...configured];
  const hints = info.annotations ?? {};
  if (hints.readOnlyHint === true) return hints.openWorldHint === true ? ['read', 'network'] : ['read'];
  return hints.openWorldHint === false ? ['read', 'write'] : ['read', 'write', 'network'];
}

/** A registry tool over one MCP tool; its input schema is the server's JSON Schema as given. */
export function createMcpTool(options: {
  server: string;
  name: string;
  info: McpToolInfo;
  risk: readonly RiskClass[] | undefined;
  caller: McpCaller;
}): Tool {
  const { info, caller } = options;
  const risk = mcpToolRisk(info, options.risk);
  // The registry's ajv knows one draft: the server's `$schema` line would only make it refuse.
  const { $schema: _draft, ...schema } = info.inputSchema;
  return {
    name: options.name,
    description: `${info.description ?? info.name} (MCP server "${options.server}")`,
    parameters: { ...schema, type: 'object' } as unknown as TSchema,
    risk,
    // While its server is down the tool is hidden from the model, and a call is refused saying why.
    unavailable: () => caller.unavailable(),
    // Parallel calls in one round only for what the server itself calls read-only and config does not contradict.
    readOnly: info.annotations?.readOnlyHint === true && !risk.includes('write') && !risk.includes('exec'),
    async execute(input, context) {
      const result = await caller.call(info.name, input as object, context.signal);
      return resultValue(result);
    },
  };
}

/**
 * What the model reads: text parts joined, other parts (images, resources) described, not inlined
 * as base64. An `isError` result is a tool error (`ok: false`), as an expected failure is.
 */
export function resultValue(result: McpCallResult): unknown {
  const parts = (result.content ?? []).map(partValue);
  const text = parts.filter((part): part is string => typeof part === 'string').join('\n');
  const others = parts.filter((part) => typeof part !== 'string');
  if (result.isError === true) return { ok: false, reason: text || 'the MCP tool reported an error' };
  return {
    ok: true,
    ...(text === '' ? {} : { text }),
    ...(others.length > 0 ? { content: others } : {}),
    ...(result.structuredContent === undefined ? {} : { structured: result.structuredContent }),
  };
}

interface ContentPart {
  type?: string;
  text?: string;
  mimeType?: string;
  data?: string;
  resource?: { uri?: string; mimeType?: string; text?: string };
}

function partValue(part: unknown): unknown {
  const value = part as ContentPart;
  if (value.type === 'text') return value.text ?? '';
  if (value.type === 'image' || value.type === 'audio') {
    // The model reads text here: a media part is named and sized, its base64 left out.
    return {
      type: value.type,
      mimeType: value.mimeType,
      bytes: Math.floor(((value.data ?? '').length * 3) / 4),
    };
  }
  if (value.type === 'resource') {
    const resource = value.resource ?? {};
    return typeof resource.text === 'string'
      ? { type: 'resource', uri: resource.uri, text: resource.text }
      : { type: 'resource', uri: resource.uri, mimeType: resource.mimeType };
  }
  return value;
}
