export { createAnthropicProvider } from './anthropic-provider.js';
export { createModelProvider } from './create-provider.js';
export { ModelCallError } from './model-call-error.js';
export { createOpenAIProvider } from './openai-provider.js';
export { createToolNameCodec, decodeToolName, encodeToolName, type ToolNameCodec } from './tool-names.js';
export type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelStopReason,
  ModelToolCall,
  ModelToolSpec,
  ProviderOptions,
} from './types.js';
