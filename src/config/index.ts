export { escapePointer, substituteEnv } from './env.js';
export { renderConfigJsonSchema } from './json-schema.js';
export {
  DEFAULT_CONFIG_PATH,
  hashConfigText,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfigText,
  parseJsonc,
} from './load.js';
export {
  collectSecretValues,
  createSecretScrubber,
  findSecretPaths,
  REDACTED,
  redactConfig,
  type SecretPath,
} from './redact.js';
export type { AgentConfig, Binding, Config, ModelConfig } from './schema.js';
export { ConfigSchema } from './schema.js';
export { SECRET_KEYWORD } from './schema-helpers.js';
export { dedupeIssues, describeSchemaError, type ValidateResult, validateConfig } from './validate.js';
