import { randomUUID } from 'node:crypto';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelConfig } from '../../../base/config/index.js';
import type { ToolNameCodec } from './tool-names.js';
import type { ModelMessage, ModelRequest, ModelStopReason, ModelToolCall } from './types.js';

/** The Chat Completions wire format: our request as its body, its answers as ours. */

export function toCompletionParams(
  request: ModelRequest,
  config: ModelConfig,
  codec: ToolNameCodec,
): ChatCompletionCreateParamsBase {
  return {
    model: config.model,
    messages: toChatMessages(request.system, request.messages, codec),
    // No tool list at all when the turn may use none: some servers reject `tools: []`.
    ...(request.tools.length > 0 && {
      tools: request.tools.map((tool) => ({
        type: 'function' as const,
        function: {
          name: codec.encode(tool.name),
          description: tool.description,
          parameters: tool.parameters,
        },
      })),
    }),
    // `max_tokens`, not `max_completion_tokens`: the compatible servers know this one.
    ...(config.maxTokens !== undefined && { max_tokens: config.maxTokens }),
    ...(config.temperature !== undefined && { temperature: config.temperature }),
  };
}

/** System message first; tool results by `tool_call_id` (the API has no error flag: the content says so). */
function toChatMessages(
  system: string,
  messages: ModelMessage[],
  codec: ToolNameCodec,
): ChatCompletionMessageParam[] {
  const result: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (message.role === 'user') result.push({ role: 'user', content: userContent(message) });
    else if (message.role === 'tool') {
      result.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
    } else {
      const toolCalls = (message.toolCalls ?? []).map((toolCall) => ({
        id: toolCall.id,
        type: 'function' as const,
        function: { name: codec.encode(toolCall.name), arguments: toolCall.arguments },
      }));
      result.push({
        role: 'assistant',
        content: message.content,
        ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
      });
    }
  }
  return result;
}

/** A user message's text, and its loaded images as `image_url` parts with a data URL. */
function userContent(message: Extract<ModelMessage, { role: 'user' }>): string | ChatCompletionContentPart[] {
  const images = (message.images ?? []).filter((image) => image.data !== undefined);
  if (images.length === 0) return message.content;
  return [
    { type: 'text', text: message.content },
    ...images.map((image) => ({
      type: 'image_url' as const,
      image_url: { url: `data:${image.mediaType};base64,${image.data}` },
    })),
  ];
}

export function toToolCall(
  part: { id: string; name: string; arguments: string },
  codec: ToolNameCodec,
): ModelToolCall {
  // Some compatible servers send no id; the tool loop needs one to pair the result with the call.
  return {
    id: part.id || `call_${randomUUID()}`,
    name: codec.decode(part.name),
    arguments: part.arguments || '{}',
  };
}

export function stopReason(finishReason: string | null, toolCalls: ModelToolCall[]): ModelStopReason {
  // Ollama and others may say `stop` while calling tools.
  if (toolCalls.length > 0 || finishReason === 'tool_calls' || finishReason === 'function_call')
    return 'tool_calls';
  if (finishReason === 'stop') return 'end';
  return finishReason === 'length' ? 'max_tokens' : 'other';
}
