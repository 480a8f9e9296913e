import type { ContentBlockParam, MessageCreateParamsBase, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { ModelConfig } from '../../../base/config/index.js';
import type { ToolNameCodec } from './tool-names.js';
import type { ModelImage, ModelMessage, ModelRequest, ModelStopReason } from './types.js';

/** The Anthropic Messages API's wire format: our request as its body, its answers as ours. */

/** `max_tokens` is required by the API. */
const DEFAULT_MAX_TOKENS = 4096;

export function toMessageParams(
  request: ModelRequest,
  config: ModelConfig,
  codec: ToolNameCodec,
): MessageCreateParamsBase {
  return {
    model: config.model,
    max_tokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages: toAnthropicMessages(request.messages, codec),
    ...(request.system && { system: request.system }),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((tool) => ({
        name: codec.encode(tool.name),
        description: tool.description,
        input_schema: { type: 'object' as const, ...tool.parameters },
      })),
    }),
    ...(config.temperature !== undefined && { temperature: config.temperature }),
  };
}

/**
 * Our messages as Anthropic turns: tool results are `tool_result` blocks of a user turn,
 * assistant tool calls `tool_use` blocks, and consecutive messages of one role are merged
 * because the API requires the roles to alternate. In a merged user turn the tool results
 * come first, as the API requires right after a `tool_use` turn.
 */
function toAnthropicMessages(messages: ModelMessage[], codec: ToolNameCodec) {
  const turns: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message, codec);
    const last = turns.at(-1);
    if (blocks.length === 0) continue;
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  for (const turn of turns) {
    if (turn.role === 'user') turn.content.sort((a, b) => rank(a) - rank(b));
  }
  return turns;
}

function toBlocks(message: ModelMessage, codec: ToolNameCodec): ContentBlockParam[] {
  if (message.role === 'tool') {
    const { toolCallId, content, isError } = message;
    return [{ type: 'tool_result', tool_use_id: toolCallId, content, ...(isError && { is_error: true }) }];
  }
  // The API rejects empty text blocks.
  const text: ContentBlockParam[] = message.content ? [{ type: 'text', text: message.content }] : [];
  if (message.role === 'user') return [...text, ...imageBlocks(message.images)];
  const toolUses = (message.toolCalls ?? []).map((toolCall) => ({
    type: 'tool_use' as const,
    id: toolCall.id,
    name: codec.encode(toolCall.name),
    input: parseInput(toolCall.arguments),
  }));
  return [...text, ...toolUses];
}

/** Images with their bytes loaded, as base64 image blocks (Anthropic takes png, jpeg, gif and webp). */
function imageBlocks(images: ModelImage[] | undefined): ContentBlockParam[] {
  return (images ?? []).flatMap((image) =>
    image.data === undefined
      ? []
      : [
          {
            type: 'image' as const,
            source: {
              type: 'base64' as const,
              media_type: image.mediaType as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp',
              data: image.data,
            },
          },
        ],
  );
}

const rank = (block: ContentBlockParam) => (block.type === 'tool_result' ? 0 : 1);

/** `tool_use.input` must be an object: recorded arguments that are not a JSON object are sent as `{}`. */
function parseInput(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Streamed input JSON as `JSON.stringify(input)` would write it; broken JSON is passed on for the registry to report. */
export function normalizeJson(json: string): string {
  if (!json.trim()) return '{}';
  try {
    return JSON.stringify(JSON.parse(json));
  } catch {
    return json;
  }
}

export function countInput(
  usage: Pick<Usage, 'input_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'>,
) {
  return (
    (usage.input_tokens ?? 0) +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0)
  );
}

export function stopReason(reason: string | null): ModelStopReason {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end';
  if (reason === 'tool_use') return 'tool_calls';
  return reason === 'max_tokens' ? 'max_tokens' : 'other';
}
