import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { type CallHandle, createCallTarget, runModelCall } from './model-call.js';
import { isOpenAIsOwnApi, stopReason, toCompletionParams, toToolCall } from './openai-messages.js';
import { createRequestToolNameCodec, type ToolNameCodec } from './tool-names.js';
import type { ModelProvider, ModelRequest, ModelResponse, ProviderOptions } from './types.js';

const OPENAI_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError };
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * A provider for any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio, OpenRouter)
 * through the Chat Completions API. Streaming (`config.stream`) sends text deltas as they
 * arrive; without streaming, `onTextDelta` is called once with the whole text (when there is
 * any), so callers see text the same way in both modes. Usage is reported when the server
 * sends it: streamed usage is requested (`stream_options.include_usage`) from OpenAI's own API
 * only, because some compatible servers reject options they do not know.
 */
export function createOpenAIProvider(options: ProviderOptions): ModelProvider {
  const { name, config } = options;
  const baseURL = config.baseUrl ?? OPENAI_BASE_URL;
  const target = createCallTarget(options, baseURL, OPENAI_ERRORS);
  const includeUsage = isOpenAIsOwnApi(baseURL);

  // Every value is explicit so that no OPENAI_* environment variable changes behaviour;
  // 'not-set' serves local servers that need no key (a real server answers 401).
  const client = new OpenAI({
    apiKey: config.apiKey ?? 'not-set',
    baseURL,
    organization: null,
    project: null,
    // Retries are ours (retry-policy.ts), so that an abort also ends the wait between attempts.
    maxRetries: 0,
    timeout: config.timeoutMs,
    logLevel: 'off',
  });

  const complete = (request: ModelRequest, call: CallHandle): Promise<ModelResponse> => {
    const codec = createRequestToolNameCodec(request);
    const body = toCompletionParams(request, config, codec);
    return config.stream
      ? streamCompletion(client, body, request, call, codec, includeUsage)
      : plainCompletion(client, body, request, call, codec);
  };

  return {
    name,
    description: target.description,
    complete: (request) => runModelCall(target, request, (call) => complete(call.request, call)),
  };
}

async function streamCompletion(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  request: ModelRequest,
  call: CallHandle,
  codec: ToolNameCodec,
  includeUsage: boolean,
): Promise<ModelResponse> {
  const streamOptions = includeUsage ? { stream_options: { include_usage: true } } : {};
  const stream = await client.chat.completions.create(
    { ...body, ...streamOptions, stream: true },
    { signal: call.signal },
  );
  call.alive();
  const response: ModelResponse = { text: '', toolCalls: [], stopReason: 'other' };
  // Tool calls arrive in pieces: the first delta of an index carries id and name, later ones more arguments.
  const parts = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason: string | null = null;
  for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
    call.alive();
    if (chunk.usage)
      response.usage = {
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
      };
    const choice = chunk.choices[0];
    if (!choice) continue;
    const text = choice.delta.content;
    if (text) {
      response.text += text;
      request.onTextDelta?.(text);
    }
    for (const delta of choice.delta.tool_calls ?? []) {
      const index = delta.index ?? parts.size;
      const part = parts.get(index) ?? { id: '', name: '', arguments: '' };
      parts.set(index, part);
      if (delta.id) part.id = delta.id;
      if (delta.function?.name) part.name = delta.function.name;
      part.arguments += delta.function?.arguments ?? '';
    }
    finishReason = choice.finish_reason ?? finishReason;
  }
  response.toolCalls = [...parts.values()].map((part) => toToolCall(part, codec));
  response.stopReason = stopReason(finishReason, response.toolCalls);
  return response;
}

async function plainCompletion(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  request: ModelRequest,
  call: CallHandle,
  codec: ToolNameCodec,
): Promise<ModelResponse> {
  const completion = await client.chat.completions.create(
    { ...body, stream: false },
    { signal: call.signal },
  );
  const choice = completion.choices[0];
  const text = choice?.message.content ?? '';
  if (text) request.onTextDelta?.(text);
  const toolCalls = (choice?.message.tool_calls ?? []).flatMap((toolCall) =>
    toolCall.type === 'function' ? [toToolCall({ id: toolCall.id, ...toolCall.function }, codec)] : [],
  );
  const usage = completion.usage;
  return {
    text,
    toolCalls,
    stopReason: stopReason(choice?.finish_reason ?? null, toolCalls),
    ...(usage && { usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } }),
  };
}
