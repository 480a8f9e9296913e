import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { configSchemaText } from '../../src/base/config/config-validator.js';
import { configValidatorSource } from '../../src/base/config/config-validator-source.js';
import { compileConfigValidator, parseJsonc } from '../../src/base/config/index.js';
import { REPO_ROOT } from '../helpers/process.js';

/**
 * The build writes the config validator as ajv's standalone code (`scripts/write-config-validator.mjs`)
 * and the gateway loads it from dist instead of compiling the schema. Config tests run from src,
 * where the schema is compiled: this checks that the generated code is the same validator, on valid
 * configs (the defaults it fills in) and invalid ones (every error object, so every message).
 */

function loadSource(source: string): ValidateFunction {
  const module = { exports: {} as unknown };
  // The generated module requires ajv's runtime and ajv-formats, resolved as from dist/base/config.
  const require = createRequire(path.join(REPO_ROOT, 'dist/base/config/config-validator.js'));
  new Function('module', 'exports', 'require', source)(module, module.exports, require);
  return module.exports as ValidateFunction;
}

const INVALID: unknown[] = [
  { http: { port: 'eighty', prot: 1 }, log: { level: 'loud' }, agents: { 'Main Agent': {} }, colour: 1 },
  { channels: { slack: { botToken: 1, mode: 'socket' } }, log: { format: 'xml' } },
  { channels: { slack: { mode: 'http', botToken: 'xoxb-1' } }, http: { port: 70000 } },
  { store: { kind: 'redis' }, owners: 'me', routes: { '': {} } },
  { models: { a: { provider: 'nope', apiKey: 1 } }, agents: { main: { tools: [1] } } },
  { tools: { toolpacks: [{ path: 1 }, 'no-such-builtin', { id: 'x' }] } },
  { bindings: [{ agent: 'main', match: { channel: 'irc' } }], stateDir: '' },
  [],
  'text',
  null,
];

describe('the generated config validator', () => {
  const compiled = compileConfigValidator();
  const generated = loadSource(configValidatorSource());

  async function validSamples(): Promise<unknown[]> {
    const example = parseJsonc(
      await readFile(path.join(REPO_ROOT, 'config/gateway.example.jsonc'), 'utf8'),
      'gateway.example.jsonc',
    );
    return [{}, example, { agents: { main: { displayName: 'Main' } }, http: { port: 9000 } }];
  }

  function outcome(validate: ValidateFunction, sample: unknown) {
    const data = structuredClone(sample);
    const valid = validate(data);
    return { valid, errors: validate.errors ?? null, data };
  }

  it('accepts what the schema accepts and fills in the same defaults', async () => {
    for (const sample of await validSamples()) {
      const expected = outcome(compiled, sample);
      expect(expected.valid).toBe(true);
      expect(outcome(generated, sample)).toEqual(expected);
    }
  });

  it('records the schema it was made from, so a stale generated file is not used', () => {
    expect((generated as ValidateFunction & { schemaText?: string }).schemaText).toBe(configSchemaText());
  });

  it('refuses what the schema refuses with the same errors, in the same order', () => {
    for (const sample of INVALID) {
      const expected = outcome(compiled, sample);
      expect(expected.valid).toBe(false);
      expect(outcome(generated, sample)).toEqual(expected);
    }
  });
});
