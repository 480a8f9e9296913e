import type { OutboundMessage } from '../../base/messages/index.js';
import type { ToolCallOutcome } from '../tools/index.js';
import type { ModelToolCall, TokenUsage } from './providers/index.js';

/**
 * What the tool loop tells its caller, in the order it happens (the loop's one outlet, like
 * pi-mono's `emit(AgentEvent)`). The loop awaits each: a `reply` is sent before the loop goes on.
 *
 * - `round_start`: a model call is about to be made; `burst` counts the rounds since the turn
 *   started or last took a steered message (the loop stops at `maxBurst`).
 * - `model_start` … `model_end`: the call whose reply streams under `replyId`; between the two,
 *   `text_delta`s carry the reply as it is written (a reply cut off there is unfinished).
 *   `model_end` names the model that answered (`models.<name>`) and the tokens it reported. A
 *   compaction's summarizing call, before the loop, emits a `model_end` alone (it streams nothing).
 * - `tool_start`: a round's tool calls are about to run (the chat may show a status line).
 * - `tool_end`: a call's outcome, before its result is recorded.
 * - `reply`: a complete message for the chat (the model's answer, or a boundary tool's `post`).
 */
export type ToolLoopEvent =
  | { type: 'round_start'; round: number; burst: number }
  | { type: 'model_start'; replyId: string }
  | { type: 'text_delta'; replyId: string; delta: string }
  | { type: 'model_end'; replyId: string; model: string; usage?: TokenUsage }
  | { type: 'tool_start'; calls: readonly ModelToolCall[] }
  | { type: 'tool_end'; call: ModelToolCall; outcome: ToolCallOutcome }
  | { type: 'reply'; message: OutboundMessage };
