export { renderConfigJsonSchema } from './json-schema.js';
export type {
  AgentConfig,
  Binding,
  BudgetsConfig,
  Config,
  ContextConfig,
  LogConfig,
  McpServerConfig,
  ModelConfig,
  PeopleConfig,
  PersonConfig,
  RoleConfig,
  RolesConfig,
  UpdateConfig,
} from './schema.js';
export { ConfigSchema } from './schema.js';
export {
  BUILTIN_ROLE_NAMES,
  PERSON_ID_PATTERN,
  ROLE_NAME_PATTERN,
  SENDER_ID_PATTERN,
} from './schema-access.js';
export {
  AGENT_EDITABLE_KEYWORD,
  SECRET_KEYWORD,
  StringEnum,
  TOOL_PROTECTED_KEYWORD,
} from './schema-helpers.js';
export {
  formatConfigPath,
  lookupConfigSchema,
  parseConfigPath,
  type SchemaLookup,
  type SchemaLookupChild,
  type SchemaLookupResult,
} from './schema-lookup.js';
export { CONFIG_RISK_CLASSES } from './schema-tools.js';
