export { type AjvOverrides, createAjv, type SchemaAuthor } from './create-ajv.js';
