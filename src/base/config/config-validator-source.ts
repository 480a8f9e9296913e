import type { ValidateFunction } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { compileConfigSchema, configSchemaText } from './config-validator.js';

// ajv ships CommonJS; under NodeNext its default export is the module object.
const standaloneCode = ((standaloneCodeModule as { default?: unknown }).default ?? standaloneCodeModule) as (
  ajv: unknown,
  validate: ValidateFunction,
) => string;

/**
 * The source of a CommonJS module whose export is the config validator (ajv's standalone code),
 * with the schema it was made from as `schemaText` (`loadConfigValidator` ignores a stale one).
 * Only the build and tests use it, so the gateway never loads ajv's standalone generator.
 */
export function configValidatorSource(): string {
  const { ajv, validate } = compileConfigSchema(true);
  const text = JSON.stringify(configSchemaText());
  return `${standaloneCode(ajv, validate)}\nmodule.exports.schemaText = ${text};\n`;
}
