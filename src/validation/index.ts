export { type AjvOverrides, COMPILE_ONCE, createAjv, type SchemaAuthor } from './create-ajv.js';
export { dedupeIssues, describeSchemaError, type SchemaIssue } from './schema-issues.js';
