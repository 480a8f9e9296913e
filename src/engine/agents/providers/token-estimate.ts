import type { ModelMessage, ModelRequest, ModelResponse, ModelToolSpec, TokenUsage } from './types.js';

/**
 * The one token estimate of the project: about 4 characters a token (no tokenizer: a bound, not a
 * count). The context budget (`../context/context-budget.ts`) fits a call's history with it, and
 * an OpenAI-compatible server that reports no usage has its calls counted with it (`estimateUsage`).
 */
export const CHARS_PER_TOKEN = 4;
/** Each message's share of the wire format (role, ids, punctuation), in tokens. */
const MESSAGE_OVERHEAD = 8;
/** An image counted as this many tokens (its bytes are not text the budget can measure). */
const IMAGE_TOKENS = 1600;

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
 * A call's usage estimated from what was sent (system prompt, tool specs, messages) and what came
 * back (the text, each tool call's name and arguments), marked `estimated`: for a server that
 * reported none, so that budgets and `/usage` still count the call.
 */
export function estimateUsage(
  request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>,
  response: Pick<ModelResponse, 'text' | 'toolCalls'>,
): TokenUsage {
  const calls = response.toolCalls.map((call) => call.name + call.arguments).join('');
  return {
    inputTokens: fixedTokens(request.system, request.tools) + messagesTokens(request.messages),
    outputTokens: textTokens(response.text + calls),
    estimated: true,
  };
}
