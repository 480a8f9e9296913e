import { type AgentConfig, type Config, modelChain } from '../../../base/config/index.js';
import { CHARS_PER_TOKEN } from '../providers/token-estimate.js';

// The estimate (about 4 characters a token) is the providers' too: they count a call with it when
// the server reports no usage. One definition, there; re-exported for the context's files.
export { fixedTokens, messagesTokens, messageTokens, textTokens } from '../providers/token-estimate.js';

/** `models.<name>.contextTokens` when absent. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;
/** The reply room kept for a model without `maxTokens` (Anthropic's default reply bound too). */
export const DEFAULT_REPLY_TOKENS = 4096;

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
