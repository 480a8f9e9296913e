import { type AgentConfig, type Config, modelChain } from '../../config/index.js';
import type { ModelMessage, ModelToolSpec } from '../providers/index.js';

/** `models.<name>.contextTokens` when absent. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;
/** The reply room kept for a model without `maxTokens` (Anthropic's default reply bound too). */
export const DEFAULT_REPLY_TOKENS = 4096;
/** The estimate: about 4 characters a token (no tokenizer: it is a bound, not a count). */
const CHARS_PER_TOKEN = 4;
/** Each message's share of the wire format (role, ids, punctuation), in tokens. */
const MESSAGE_OVERHEAD = 8;
/** An image counted as this many tokens (its bytes are not text the budget can measure). */
const IMAGE_TOKENS = 1600;

/**
 * What of the model's context a turn may fill: `contextTokens` is the model's window (the
 * smallest in its failover chain, so a fallback fits too), `replyTokens` is kept free for the
 * answer, a tool result longer than `toolResultChars` is cut in what the model sees, and the
 * session is compacted past `compactAtTokens` (when `compaction` is on).
 */
export interface ContextBudget {
  contextTokens: number;
  replyTokens: number;
  toolResultChars: number;
  compactAtTokens: number;
  compaction: boolean;
}

/** The budget of an agent's model (`agents.<id>.model`, with its fallbacks). */
export function contextBudget(config: Config, model: AgentConfig['model']): ContextBudget {
  const models = modelChain(config, model).map((name) => config.models[name]);
  const contextTokens = Math.min(
    DEFAULT_CONTEXT_TOKENS * 1000,
    ...models.map((entry) => entry?.contextTokens ?? DEFAULT_CONTEXT_TOKENS),
  );
  const replies = models.map((entry) => entry?.maxTokens ?? DEFAULT_REPLY_TOKENS);
  const replyTokens = Math.min(Math.max(0, ...replies), Math.floor(contextTokens / 2));
  const { context } = config;
  return {
    contextTokens,
    replyTokens,
    toolResultChars: Math.floor((contextTokens * CHARS_PER_TOKEN * context.toolResultPercent) / 100),
    compactAtTokens: Math.floor((contextTokens * context.compactAtPercent) / 100),
    compaction: context.compaction,
  };
}

export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** One message's estimated tokens: its text, its tool calls, its images and its share of the wire format. */
export function messageTokens(message: ModelMessage): number {
  let chars = message.content.length;
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? [])
      chars += call.id.length + call.name.length + call.arguments.length;
  if (message.role === 'tool') chars += message.toolCallId.length + message.toolName.length;
  const images = message.role === 'user' ? (message.images?.length ?? 0) : 0;
  return Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD + images * IMAGE_TOKENS;
}

export function messagesTokens(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/** What a call costs besides its messages: the system prompt and the tool specs. */
export function fixedTokens(system: string, tools: readonly ModelToolSpec[]): number {
  return textTokens(system) + (tools.length === 0 ? 0 : textTokens(JSON.stringify(tools)));
}

/**
 * A tool result cut to `maxChars` (its head) with a marker saying so; shorter ones as they are.
 * The transcript keeps the whole result: only what the model sees is cut.
 */
export function truncateResult(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  const shown = Math.max(0, maxChars);
  const count = (value: number) => value.toLocaleString('en-US');
  return `${content.slice(0, shown)}\n[… cut: ${count(shown)} of ${count(content.length)} characters shown; the whole result is in the transcript]`;
}
