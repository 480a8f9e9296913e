export {
  type AjvOverrides,
  COMPILE_ONCE,
  createAjv,
  GATEWAY_SCHEMA_ONCE,
  type SchemaAuthor,
} from './create-ajv.js';
export { dedupeIssues, describeSchemaError, type SchemaIssue } from './schema-issues.js';
