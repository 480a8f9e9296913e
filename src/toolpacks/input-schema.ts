import type { Ajv } from 'ajv';
import { COMPILE_ONCE, createAjv } from '../validation/index.js';

/**
 * Checks schemas against ajv's default meta-schema (draft-07, the one the tool registry uses). It
 * never stores a checked schema, so one instance serves every load; compiling the meta-schema is
 * most of the cost of a fresh ajv (about 10 ms), which 50 toolpacks would otherwise pay 50 times.
 */
let metaSchemaChecker: Ajv | undefined;

/**
 * Returns a checker for the input schemas of one manifest: `undefined` when the schema is valid,
 * else why not. A schema is valid when it has `type: "object"` at the top (models are asked for a
 * JSON object of arguments), passes the meta-schema and compiles with the tool registry's ajv
 * options, so a tool accepted here also registers. Each manifest gets its own compiling ajv, so
 * no `$id` or `$ref` target leaks from one toolpack into another.
 */
export function createInputSchemaCompiler(): (schema: Record<string, unknown>) => string | undefined {
  let ajv: Ajv | undefined;
  return (schema) => {
    if (schema.type !== 'object')
      return 'must have "type": "object" at the top (tool input is a JSON object)';
    try {
      metaSchemaChecker ??= createAjv('authored', { useDefaults: false });
      if (!metaSchemaChecker.validateSchema(schema)) {
        const reasons = metaSchemaChecker.errorsText(metaSchemaChecker.errors, { dataVar: 'schema' });
        return `is not a valid JSON Schema: ${reasons}`;
      }
      // Only whether it compiles matters here (the function is dropped): no optimizing pass.
      if (!ajv) {
        ajv = createAjv('authored', { ...COMPILE_ONCE, validateSchema: false });
      }
      ajv.compile(schema);
      return undefined;
    } catch (error) {
      return `is not a valid JSON Schema: ${(error as Error).message}`;
    }
  };
}
