import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Whose schemas an instance compiles. `gateway`: ours, written in TypeBox (config, manifests):
 * strict, so a typo in a schema is a bug found at start. `authored`: written by a toolpack author
 * (tool inputs, WebUI inputs): not strict, since authors use keywords ajv does not know.
 */
export type SchemaAuthor = 'gateway' | 'authored';

/** What a use may change: the rest (every error, defaults filled in, formats) is the same everywhere. */
export type AjvOverrides = Pick<
  Options,
  'allErrors' | 'verbose' | 'addUsedSchema' | 'validateSchema' | 'useDefaults' | 'code'
>;

/**
 * For a big schema compiled once per process and validated rarely (the config, toolpack
 * manifests): ajv's optimizing pass over the generated code is about a third of compiling the
 * config schema (measured 180–250 → 130–155 ms of CPU), and buys nothing for a function called on
 * start and on config edits. The code is the same validator, only less tidy.
 */
export const COMPILE_ONCE: AjvOverrides = { code: { optimize: false } };

/**
 * COMPILE_ONCE for the gateway's own constant schemas (the config, the toolpack manifest), which
 * are also not checked against the JSON Schema meta-schema at run time: compiling the meta-schema
 * is another 30–35 ms of CPU per instance on every start. `test/unit/gateway-schemas.test.ts`
 * checks those schemas against it instead, and strict mode still rejects unknown keywords.
 */
export const GATEWAY_SCHEMA_ONCE: AjvOverrides = { ...COMPILE_ONCE, validateSchema: false };

/** The one ajv set-up: every schema in the gateway is compiled by an instance made here. */
export function createAjv(author: SchemaAuthor, overrides: AjvOverrides = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: author === 'gateway', ...overrides });
  addFormats(ajv);
  return ajv;
}
