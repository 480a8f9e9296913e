import type { ModelMessage } from '../providers/index.js';
import { messagesTokens, messageTokens, truncateResult } from './context-budget.js';

/** A tool result of the last turn squeezed to this when even the last turn does not fit otherwise. */
const SQUEEZED_RESULT_CHARS = 2000;

export interface FitOptions {
  /** Tokens the messages may take (the model's context less the reply, the system prompt and the tools). */
  budgetTokens: number;
  /** Tool results longer than this are cut, with a marker (`truncateResult`). */
  toolResultChars: number;
  /** The first this many messages are always kept (a compaction's summary). */
  pinned: number;
}

/**
 * The messages a model call is sent: tool results over `toolResultChars` cut, then, while over
 * the budget, whole exchanges dropped from the oldest. What is dropped always ends before a user
 * message (a user's words or a system entry), so the window starts at one and never splits a tool
 * exchange; the last user message and what follows it are never dropped. If those alone are over
 * the budget, their tool results are squeezed, oldest first. `messages` is not changed.
 */
export function fitMessages(messages: readonly ModelMessage[], options: FitOptions): ModelMessage[] {
  const cut = messages.map((message) => cutResult(message, options.toolResultChars));
  if (messagesTokens(cut) <= options.budgetTokens) return cut;
  const pinned = cut.slice(0, options.pinned);
  const start =
    options.pinned + windowStart(cut.slice(options.pinned), options.budgetTokens - messagesTokens(pinned));
  const kept = [...pinned, ...cut.slice(start)];
  const originals = [...messages.slice(0, options.pinned), ...messages.slice(start)];
  return squeeze(kept, originals, options);
}

function cutResult(message: ModelMessage, maxChars: number): ModelMessage {
  if (message.role !== 'tool' || message.content.length <= maxChars) return message;
  return { ...message, content: truncateResult(message.content, maxChars) };
}

/**
 * The earliest user message from which the rest fits in `budget` tokens; the last user message
 * when none does (0 when there is no user message at all: nothing can be dropped safely).
 */
function windowStart(messages: readonly ModelMessage[], budget: number): number {
  let tokens = 0;
  let start: number | undefined;
  let last: number | undefined;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as ModelMessage;
    tokens += messageTokens(message);
    if (message.role !== 'user') continue;
    last ??= index;
    if (tokens <= budget) start = index;
  }
  return start ?? last ?? 0;
}

/**
 * Tool results squeezed (cut from their `originals`), oldest first, until the messages fit or
 * none is left to squeeze: then they are sent as they are and the provider may refuse them.
 */
function squeeze(
  messages: ModelMessage[],
  originals: readonly ModelMessage[],
  options: FitOptions,
): ModelMessage[] {
  let over = messagesTokens(messages) - options.budgetTokens;
  for (let index = options.pinned; index < messages.length && over > 0; index += 1) {
    const message = messages[index] as ModelMessage;
    const original = originals[index] as ModelMessage;
    if (original.role !== 'tool' || original.content.length <= SQUEEZED_RESULT_CHARS) continue;
    const before = messageTokens(message);
    const squeezed: ModelMessage = {
      ...original,
      content: truncateResult(original.content, SQUEEZED_RESULT_CHARS),
    };
    messages[index] = squeezed;
    over -= before - messageTokens(squeezed);
  }
  return messages;
}
