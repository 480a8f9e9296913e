import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { countInput, normalizeJson, stopReason, toMessageParams } from './anthropic-messages.js';
import { type CallHandle, createCallTarget, runModelCall } from './model-call.js';
import { createRequestToolNameCodec, type ToolNameCodec } from './tool-names.js';
import type { ModelProvider, ModelRequest, ModelResponse, ModelToolCall, ProviderOptions } from './types.js';

const ANTHROPIC_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError };
/** The SDK appends `/v1/messages` itself, so a base URL has no `/v1`. */
const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/**
 * A provider for Anthropic's Messages API. Streaming (`config.stream`) sends text deltas as
 * they arrive and assembles tool inputs from `input_json_delta` events; without streaming,
 * `onTextDelta` is called once with the whole text (when there is any).
 */
export function createAnthropicProvider(options: ProviderOptions): ModelProvider {
  const { name, config } = options;
  const baseURL = config.baseUrl ?? ANTHROPIC_BASE_URL;
  const target = createCallTarget(options, baseURL, ANTHROPIC_ERRORS);

  // An explicit key keeps ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and the SDK's credential
  // files out of play; without one the server answers 401 and the error names the setting.
  const client = new Anthropic({
    apiKey: config.apiKey ?? 'not-set',
    baseURL,
    // Retries are ours (retry-policy.ts), so that an abort also ends the wait between attempts.
    maxRetries: 0,
    timeout: config.timeoutMs,
    logLevel: 'off',
  });

  const complete = (request: ModelRequest, call: CallHandle): Promise<ModelResponse> => {
    const codec = createRequestToolNameCodec(request);
    const body = toMessageParams(request, config, codec);
    return config.stream
      ? streamMessage(client, body, request, call, codec)
      : plainMessage(client, body, request, call, codec);
  };

  return {
    name,
    description: target.description,
    complete: (request) => runModelCall(target, request, (call) => complete(call.request, call)),
  };
}

async function streamMessage(
  client: Anthropic,
  body: MessageCreateParamsBase,
  request: ModelRequest,
  call: CallHandle,
  codec: ToolNameCodec,
): Promise<ModelResponse> {
  const stream = await client.messages.create({ ...body, stream: true }, { signal: call.signal });
  call.alive();
  const response: ModelResponse = { text: '', toolCalls: [], stopReason: 'other' };
  const toolInputs = new Map<number, { id: string; name: string; json: string }>();
  let inputTokens = 0;
  let outputTokens: number | undefined;
  for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
    call.alive();
    if (event.type === 'message_start') {
      inputTokens = countInput(event.message.usage);
      outputTokens = event.message.usage.output_tokens;
    } else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      const { id, name } = event.content_block;
      toolInputs.set(event.index, { id, name, json: '' });
    } else if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta' && event.delta.text) {
        response.text += event.delta.text;
        request.onTextDelta?.(event.delta.text);
      } else if (event.delta.type === 'input_json_delta') {
        const toolInput = toolInputs.get(event.index);
        if (toolInput) toolInput.json += event.delta.partial_json;
      }
    } else if (event.type === 'message_delta') {
      response.stopReason = stopReason(event.delta.stop_reason);
      outputTokens = event.usage.output_tokens;
    }
  }
  response.toolCalls = [...toolInputs.values()].map(({ id, name, json }) => ({
    id,
    name: codec.decode(name),
    arguments: normalizeJson(json),
  }));
  if (outputTokens !== undefined) response.usage = { inputTokens, outputTokens };
  return response;
}

async function plainMessage(
  client: Anthropic,
  body: MessageCreateParamsBase,
  request: ModelRequest,
  call: CallHandle,
  codec: ToolNameCodec,
): Promise<ModelResponse> {
  const message = await client.messages.create({ ...body, stream: false }, { signal: call.signal });
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        name: codec.decode(block.name),
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  if (text) request.onTextDelta?.(text);
  const usage = { inputTokens: countInput(message.usage), outputTokens: message.usage.output_tokens };
  return { text, toolCalls, stopReason: stopReason(message.stop_reason), usage };
}
