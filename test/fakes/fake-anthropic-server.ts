import { encodeToolName } from '../../src/engine/agents/providers/tool-names.js';
import {
  argumentsText,
  type FakeDialect,
  type FakeModelServer,
  type FakeModelServerOptions,
  type FakeStep,
  splitText,
  startFakeModelServer,
} from './fake-model-server.js';

/**
 * A fake Anthropic server: `POST /v1/messages`, streaming (SSE events message_start,
 * content_block_start/delta/stop with `text_delta` and `input_json_delta`, message_delta with
 * the stop reason, message_stop) or plain JSON. Its `url` has no `/v1`: the SDK appends
 * `/v1/messages` to the base URL itself.
 */
export function startFakeAnthropicServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  return startFakeModelServer(anthropicDialect, '', options);
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

const anthropicDialect: FakeDialect = {
  path: '/v1/messages',
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: ERROR_TYPES[status] ?? 'api_error', message },
  }),
  streamError: (type) => event('error', { error: { type, message: `scripted ${type}` } }),
  reply(step, request) {
    return {
      ...message(request.body?.model),
      content: blocks(step).map((block) =>
        block.type === 'text'
          ? block
          : {
              type: 'tool_use',
              id: block.id,
              name: block.name,
              input: JSON.parse(argumentsText(block.toolCall)),
            },
      ),
      stop_reason: stopReason(step),
      usage: usage(step),
    };
  },
  stream(step, request) {
    const { inputTokens = 10, outputTokens = 5 } = step.usage ?? {};
    const start = { ...message(request.body?.model), content: [], stop_reason: null };
    const content = [
      event('message_start', {
        message: { ...start, usage: { input_tokens: inputTokens, output_tokens: 1 } },
      }),
    ];
    blocks(step).forEach((block, index) => {
      if (block.type === 'text') {
        content.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        for (const text of splitText(block.text, step.chunks)) {
          content.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
        }
      } else {
        const { id, name } = block;
        content.push(
          event('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } }),
        );
        for (const partial_json of splitText(argumentsText(block.toolCall), 2)) {
          content.push(
            event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }),
          );
        }
      }
      content.push(event('content_block_stop', { index }));
    });
    const finish = [
      event('message_delta', {
        delta: { stop_reason: stopReason(step), stop_sequence: null },
        usage: { output_tokens: outputTokens },
      }),
      event('message_stop', {}),
    ];
    return { content, finish };
  },
};

function blocks(step: FakeStep) {
  const text = step.text ? [{ type: 'text' as const, text: step.text }] : [];
  const toolUses = (step.toolCalls ?? []).map((toolCall, index) => ({
    type: 'tool_use' as const,
    id: toolCall.id ?? `toolu_${index}`,
    name: encodeToolName(toolCall.name),
    toolCall,
  }));
  return [...text, ...toolUses];
}

function message(model: unknown) {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: typeof model === 'string' ? model : 'fake',
  };
}

function stopReason(step: FakeStep): string {
  return step.toolCalls?.length ? 'tool_use' : 'end_turn';
}

function usage(step: FakeStep) {
  const { inputTokens = 10, outputTokens = 5 } = step.usage ?? {};
  return { input_tokens: inputTokens, output_tokens: outputTokens };
}

function event(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}
