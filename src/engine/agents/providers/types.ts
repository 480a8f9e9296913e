import type { ModelConfig } from '../../../base/config/index.js';
import type { Logger } from '../../../base/logging/index.js';

/** A tool as the model sees it: name, description and the JSON Schema of its arguments. */
export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call as the model wrote it; `arguments` is the raw JSON text, validated later by the registry. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The conversation in a provider-neutral form. Providers map it to their wire format
 * (OpenAI chat messages, Anthropic content blocks) and may merge adjacent messages of one role.
 */
export type ModelMessage =
  | { role: 'user'; content: string; images?: ModelImage[] }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/**
 * An image shown to the model with a user message: `path` is its workspace path; `data` (base64)
 * is filled in before the call for models that take images (`models.<name>.images`); an image
 * without `data` is not sent (the message's text names its path).
 */
export interface ModelImage {
  mediaType: string;
  path: string;
  data?: string;
}

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  /** Empty when the turn may use no tool; then no tool list is sent at all. */
  tools: ModelToolSpec[];
  signal: AbortSignal;
  /** Called with each piece of reply text as it arrives (streaming); never with tool-call JSON. */
  onTextDelta?(delta: string): void;
  /**
   * Retries of this call, in place of `models.<name>.maxRetries` (default 2): the failover
   * provider passes 1 for a model a fallback follows, unless its config sets it.
   */
  maxRetries?: number;
}

export type ModelStopReason = 'end' | 'tool_calls' | 'max_tokens' | 'other';

/** Tokens one model call took, as the provider reported them (or estimated them, see `estimated`). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** True when the server reported no usage and the tokens are estimated (about 4 characters a token). */
  estimated?: boolean;
}

export interface ModelResponse {
  /** The whole reply text of this call ('' when the model only called tools). */
  text: string;
  toolCalls: ModelToolCall[];
  stopReason: ModelStopReason;
  usage?: TokenUsage;
  /** The config name (`models.<name>`) of the model that answered, when not the provider's own (a fallback). */
  model?: string;
}

export interface ModelProvider {
  /** The config name (`models.<name>`). */
  readonly name: string;
  /** For logs and error messages, e.g. `openai gpt-4o-mini at http://127.0.0.1:11434/v1`. */
  readonly description: string;
  /**
   * One model call. Retries 429, 5xx and network errors itself (bounded, with backoff and
   * jitter). Throws `ModelCallError` when the call finally fails, and rethrows the signal's
   * abort reason when aborted.
   */
  complete(request: ModelRequest): Promise<ModelResponse>;
}

export interface ProviderOptions {
  name: string;
  config: ModelConfig;
  logger: Logger;
}
