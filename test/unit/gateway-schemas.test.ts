import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/base/config/index.js';
import { createAjv } from '../../src/base/validation/index.js';
import { ToolpackManifestSchema } from '../../src/extensions/toolpacks/index.js';

// The config and manifest validators skip ajv's meta-schema check at run time (GATEWAY_SCHEMA_ONCE,
// 30–35 ms of CPU per start each): this is where those two schemas are checked against it.

describe("the gateway's own schemas", () => {
  const ajv = createAjv('gateway');

  it.each([
    ['the config schema', ConfigSchema],
    ['the toolpack manifest schema', ToolpackManifestSchema],
  ])('%s is a valid JSON Schema (draft-07 meta-schema)', (_name, schema) => {
    const valid = ajv.validateSchema(schema);
    expect(ajv.errorsText(ajv.errors)).toBe('No errors');
    expect(valid).toBe(true);
  });
});
