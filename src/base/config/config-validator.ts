import { createRequire } from 'node:module';
import type { Options, ValidateFunction } from 'ajv';
import { createAjv, GATEWAY_SCHEMA_ONCE } from '../validation/index.js';
import { type Config, ConfigSchema } from './schema/schema.js';
import { AGENT_EDITABLE_KEYWORD, SECRET_KEYWORD, TOOL_PROTECTED_KEYWORD } from './schema/schema-helpers.js';

/**
 * The config validator's generated code, written beside this module by `npm run build`
 * (`scripts/write-config-validator.mjs`, with `config-validator-source.ts`): loading it costs about 20 ms of CPU at start where
 * compiling the schema costs 75–120 ms. From `src/` (tests, tsx) there is no such file and the
 * schema is compiled; both are the same validator (`test/unit/config-validator.test.ts`).
 */
export const STANDALONE_CONFIG_VALIDATOR = 'config-validator.cjs';

/** The config schema compiled with the gateway's ajv options; `source` keeps the code (for the build). */
export function compileConfigSchema(source: boolean): {
  ajv: ReturnType<typeof createAjv>;
  validate: ValidateFunction<Config>;
} {
  const code: Options['code'] = { ...GATEWAY_SCHEMA_ONCE.code, ...(source ? { source: true } : {}) };
  const ajv = createAjv('gateway', { ...GATEWAY_SCHEMA_ONCE, code });
  ajv.addKeyword({ keyword: SECRET_KEYWORD, schemaType: 'boolean' });
  ajv.addKeyword({ keyword: TOOL_PROTECTED_KEYWORD, schemaType: ['boolean', 'string'] });
  ajv.addKeyword({ keyword: AGENT_EDITABLE_KEYWORD, schemaType: 'boolean' });
  return { ajv, validate: ajv.compile<Config>(ConfigSchema) };
}

/** The config schema compiled now, with the gateway's ajv options. */
export function compileConfigValidator(): ValidateFunction<Config> {
  return compileConfigSchema(false).validate;
}

/** The schema as the generated module records it: a generated file from another schema is not used. */
export function configSchemaText(): string {
  return JSON.stringify(ConfigSchema);
}

/**
 * The generated validator when the build wrote it beside this module for this very schema, else
 * the schema compiled (from `src/`, or a `dist/` whose generated file is stale: tsc run alone).
 */
export function loadConfigValidator(): ValidateFunction<Config> {
  let generated: ValidateFunction<Config> & { schemaText?: string };
  try {
    generated = createRequire(import.meta.url)(`./${STANDALONE_CONFIG_VALIDATOR}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return compileConfigValidator();
  }
  return generated.schemaText === configSchemaText() ? generated : compileConfigValidator();
}
