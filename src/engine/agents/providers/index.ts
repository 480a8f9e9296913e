export { createModelProvider } from './create-provider.js';
export { ModelCallError } from './model-call-error.js';
export { PROBE_TIMEOUT_MS, probeModel } from './probe-model.js';
export { createToolNameCodec, decodeToolName, encodeToolName, type ToolNameCodec } from './tool-names.js';
export type {
  ModelImage,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelStopReason,
  ModelToolCall,
  ModelToolSpec,
  ProviderOptions,
  TokenUsage,
} from './types.js';
