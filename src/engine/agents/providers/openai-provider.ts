import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { type CallHandle, createCallTarget, runModelCall } from './model-call.js';
import { stopReason, toCompletionParams, toToolCall } from './openai-messages.js';
import { estimateUsage } from './token-estimate.js';
import { createRequestToolNameCodec, type ToolNameCodec } from './tool-names.js';
import type { ModelProvider, ModelRequest, ModelResponse, ProviderOptions } from './types.js';

const OPENAI_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError };
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * A provider for any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio, OpenRouter)
 * through the Chat Completions API. Streaming (`config.stream`) sends text deltas as they
 * arrive; without streaming, `onTextDelta` is called once with the whole text (when there is
 * any), so callers see text the same way in both modes. Streamed usage is asked of every server
 * (`stream_options.include_usage`: OpenAI, vLLM, Ollama, LM Studio and OpenRouter send it only
 * when asked); a server that rejects the option with a 400 naming it is asked again without it,
 * and from then on. Where an answer carries no usage, it is estimated (`estimateUsage`, about 4
 * characters a token) and marked `estimated`, so that every call is counted and budgeted.
 */
export function createOpenAIProvider(options: ProviderOptions): ModelProvider {
  const { name, config } = options;
  const baseURL = config.baseUrl ?? OPENAI_BASE_URL;
  const target = createCallTarget(options, baseURL, OPENAI_ERRORS);
  // Cleared for good when the server rejects `stream_options` (an older or stricter server).
  let askUsage = true;
  const streamOnce = async (body: ChatCompletionCreateParamsBase, call: CallHandle) => {
    if (!askUsage) return openStream(client, body, call, false);
    try {
      return await openStream(client, body, call, true);
    } catch (error) {
      if (!rejectsStreamOptions(error)) throw error;
      askUsage = false;
      options.logger.warn(
        { model: name, url: target.url },
        `models.${name}: the server rejected stream_options (${(error as Error).message}); streamed calls are sent without it and their usage is estimated`,
      );
      return openStream(client, body, call, false);
    }
  };

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
    const answer = config.stream
      ? streamOnce(body, call).then((stream) => streamCompletion(stream, request, call, codec))
      : plainCompletion(client, body, request, call, codec);
    return answer.then((response) =>
      response.usage ? response : { ...response, usage: estimateUsage(request, response) },
    );
  };

  return {
    name,
    description: target.description,
    complete: (request) => runModelCall(target, request, (call) => complete(call.request, call)),
  };
}

/** A 400 whose message names `stream_options`: the server does not take the option. */
function rejectsStreamOptions(error: unknown): boolean {
  return error instanceof APIError && error.status === 400 && /stream_options/.test(error.message);
}

function openStream(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  call: CallHandle,
  askUsage: boolean,
): Promise<AsyncIterable<ChatCompletionChunk>> {
  const streamOptions = askUsage ? { stream_options: { include_usage: true } } : {};
  return client.chat.completions.create({ ...body, ...streamOptions, stream: true }, { signal: call.signal });
}

async function streamCompletion(
  stream: AsyncIterable<ChatCompletionChunk>,
  request: ModelRequest,
  call: CallHandle,
  codec: ToolNameCodec,
): Promise<ModelResponse> {
  call.alive();
  const response: ModelResponse = { text: '', toolCalls: [], stopReason: 'other' };
  // Tool calls arrive in pieces: the first delta of an index carries id and name, later ones more arguments.
  const parts = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason: string | null = null;
  for await (const chunk of stream) {
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
