import type { Ajv, ValidateFunction } from 'ajv';
import { fail, ok, type Result } from '../../base/errors/index.js';
import { COMPILE_ONCE, createAjv } from '../../base/validation/index.js';

/**
 * Checks schemas against ajv's default meta-schema (draft-07, the one the tool registry uses). It
 * never stores a checked schema, so one instance serves every load; compiling the meta-schema is
 * most of the cost of a fresh ajv (about 10 ms), which 50 toolpacks would otherwise pay 50 times.
 */
let metaSchemaChecker: Ajv | undefined;

export interface InputSchemaCompiler {
  /**
   * A tool's input schema compiled with the tool registry's ajv options (the meta-schema check is
   * done here, before; no optimizing pass, see below), or why it is not valid. The registry uses
   * this validator as it is: each tool schema is compiled once per process, here, where a bad one
   * is named early.
   */
  tool(schema: Record<string, unknown>): Result<ValidateFunction, string>;
  /** `undefined` when a WebUI entry's schema is valid, else why not; the compiled code is dropped. */
  webui(schema: Record<string, unknown>): string | undefined;
}

/**
 * Checks the input schemas of one manifest. A schema is valid when it has `type: "object"` at the
 * top (models are asked for a JSON object of arguments), passes the meta-schema and compiles with
 * the tool registry's ajv options. Each manifest gets its own compiling ajv instances, so no `$id`
 * or `$ref` target leaks from one toolpack into another.
 */
export function createInputSchemaCompiler(): InputSchemaCompiler {
  let compiling: Ajv | undefined;
  // The registry's options less the meta-schema check (done before) and ajv's optimizing pass: it
  // costs ~10 ms of start CPU for the packaged toolpacks' 18 tool schemas and buys ~0.01 µs per
  // validation (measured 0.13 vs 0.14 µs), nothing for a validator run once per tool call.
  const ajv = () => (compiling ??= createAjv('authored', { ...COMPILE_ONCE, validateSchema: false }));
  return {
    tool: (schema) => compileChecked(schema, ajv),
    webui(schema) {
      // Only whether it compiles matters (`tool-ui` compiles its own): the function is dropped.
      const compiled = compileChecked(schema, ajv);
      return compiled.ok ? undefined : compiled.error;
    },
  };
}

function compileChecked(schema: Record<string, unknown>, ajv: () => Ajv): Result<ValidateFunction, string> {
  if (schema.type !== 'object')
    return fail('must have "type": "object" at the top (tool input is a JSON object)');
  try {
    metaSchemaChecker ??= createAjv('authored', { useDefaults: false });
    if (!metaSchemaChecker.validateSchema(schema)) {
      const reasons = metaSchemaChecker.errorsText(metaSchemaChecker.errors, { dataVar: 'schema' });
      return fail(`is not a valid JSON Schema: ${reasons}`);
    }
    return ok(ajv().compile(schema));
  } catch (error) {
    return fail(`is not a valid JSON Schema: ${(error as Error).message}`);
  }
}
