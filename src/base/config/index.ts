export { absentConfigFile, defaultToolpackEntries, PACKAGED_TOOLPACKS_DIR } from './builtin-defaults.js';
export {
  findLooseConfigFile,
  holdsSecrets,
  type LooseConfigFile,
  modeText,
  tightenConfigFile,
} from './config-mode.js';
export {
  compileConfigValidator,
  STANDALONE_CONFIG_VALIDATOR,
} from './config-validator.js';
export * from './editor/index.js';
export { escapePointer, substituteEnv } from './env.js';
export {
  DEFAULT_ENV_FILE,
  ENV_FILE_VARIABLE,
  envFilePath,
  missingVariableHint,
  type ReadEnvironmentOptions,
  readEnvironment,
  writeEnvVariables,
} from './env-file.js';
export {
  DEFAULT_CONFIG_PATH,
  hashConfigText,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfigText,
  parseJsonc,
} from './load.js';
export { modelChain, modelChainText, primaryModel } from './model-chain.js';
export { tokenCost } from './model-price.js';
export {
  collectSecretValues,
  createSecretScrubber,
  findSecretPaths,
  REDACTED,
  redactConfig,
  type SecretPath,
} from './redact.js';
export * from './schema/index.js';
export { validateConfig } from './validate.js';
