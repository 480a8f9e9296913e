import { describe, expect, it } from 'vitest';
import {
  findSecretPaths,
  formatConfigPath,
  lookupConfigSchema,
  parseConfigPath,
  type SchemaLookupResult,
} from '../../src/base/config/index.js';

function lookup(path: string): SchemaLookupResult {
  const found = lookupConfigSchema(path);
  if (!found.ok) throw new Error(found.error);
  return found.result;
}

describe('lookupConfigSchema', () => {
  it('gives the root for "" and "." with every top-level key as a child', () => {
    for (const path of ['', '.']) {
      const root = lookup(path);
      expect(root.path).toBe('');
      expect(root.schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(root.schema).not.toHaveProperty('properties');
      expect(root.children.map((child) => child.key)).toEqual(
        expect.arrayContaining(['stateDir', 'http', 'owners', 'agents', 'models', 'bindings', 'commands']),
      );
      expect(root.children.find((child) => child.key === 'http')).toEqual({
        key: 'http',
        path: 'http',
        type: 'object',
        required: false,
        hasChildren: true,
      });
      expect(root.children.find((child) => child.key === 'owners')).toMatchObject({ hasChildren: false });
    }
  });

  it('gives a leaf with its shallow keywords', () => {
    const port = lookup('http.port');
    expect(port).toEqual({
      path: 'http.port',
      schema: {
        type: 'integer',
        description: expect.any(String),
        default: 8787,
        minimum: 0,
        maximum: 65535,
      },
      children: [],
    });
    expect(lookup('log.level').schema.enum).toContain('debug');
  });

  it('shows what the gateway tool may not change (x-tool-protected), so the model can read it first', () => {
    expect(lookup('owners').schema['x-tool-protected']).toBe(true);
    expect(lookup('channels.slack').schema['x-tool-protected']).toBe('presence');
    expect(lookup('tools.toolpacks').schema['x-tool-protected']).toBe('added-code');
    expect(lookup('models.*.baseUrl').schema.format).toBe('uri');
  });

  it('walks a record through any key to its value schema, and marks secrets', () => {
    const apiKey = lookup('models.default.apiKey');
    expect(apiKey.path).toBe('models.default.apiKey');
    expect(apiKey.schema).toMatchObject({ type: 'string', 'x-secret': true });
    const model = lookup('models.default');
    expect(model.children.find((child) => child.key === 'provider')).toEqual({
      key: 'provider',
      path: 'models.default.provider',
      type: 'string',
      required: true,
      hasChildren: false,
    });
    // A key with a default need not be written, though the schema lists it as required.
    expect(model.children.find((child) => child.key === 'stream')?.required).toBe(false);
  });

  it('lists the value keys of a record under a `*` placeholder, which lookups accept', () => {
    const models = lookup('models');
    expect(models.schema).toMatchObject({ type: 'object', additionalProperties: { type: 'object' } });
    expect(models.schema).not.toHaveProperty('patternProperties');
    expect(models.children.map((child) => child.path)).toContain('models.*.apiKey');
    expect(lookup('models.*.apiKey').schema['x-secret']).toBe(true);
    expect(lookup('models["gpt-4.1"].apiKey').path).toBe('models["gpt-4.1"].apiKey');
  });

  it('walks array items with [n] and lists item keys under [*]', () => {
    expect(lookup('bindings[0].match.channel').schema).toMatchObject({
      type: 'string',
      enum: ['webchat', 'slack', 'discord'],
    });
    const bindings = lookup('bindings');
    expect(bindings.schema).toMatchObject({ type: 'array', default: [], items: { type: 'object' } });
    expect(bindings.children).toEqual([
      { key: 'agent', path: 'bindings[*].agent', type: 'string', required: true, hasChildren: false },
      { key: 'match', path: 'bindings[*].match', type: 'object', required: true, hasChildren: true },
    ]);
    expect(lookup('bindings[*].match').children.map((child) => child.key)).toContain('chatId');
  });

  it('describes an array of scalars by its items, with no children', () => {
    expect(lookup('owners')).toMatchObject({
      schema: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: expect.any(String) } },
      children: [],
    });
  });

  it('names the first unknown part and the keys known there', () => {
    expect(lookupConfigSchema('http.prot')).toEqual({
      ok: false,
      error:
        'Unknown config path: http.prot (at "prot"; known keys here: host, port, trustProxy, token, users)',
    });
    expect(lookupConfigSchema('http.port.x')).toEqual({
      ok: false,
      error: 'Unknown config path: http.port.x (at "x"; known keys here: none)',
    });
    expect(lookupConfigSchema('bindings.first')).toEqual({
      ok: false,
      error: 'Unknown config path: bindings.first (at "first"; known keys here: [n])',
    });
    expect(lookupConfigSchema('nope')).toMatchObject({
      ok: false,
      error: expect.stringContaining('stateDir, log'),
    });
  });

  it('finds every secret path of the schema', () => {
    for (const secretPath of findSecretPaths()) {
      expect(lookup(secretPath.join('.')).schema['x-secret']).toBe(true);
    }
  });
});

describe('config paths', () => {
  it('parse and format back', () => {
    for (const path of ['agents.main.tools', 'bindings[0].match.channel', 'models["gpt-4.1"].apiKey']) {
      const parsed = parseConfigPath(path);
      if (!parsed.ok) throw new Error(parsed.error);
      expect(formatConfigPath(parsed.value)).toBe(path);
    }
    expect(parseConfigPath('bindings[2].agent')).toEqual({ ok: true, value: ['bindings', 2, 'agent'] });
    // The placeholder is a key either way; the schema walk reads it as "any item" under an array.
    expect(parseConfigPath('bindings[*]')).toEqual({ ok: true, value: ['bindings', '*'] });
  });

  it('reject malformed paths, saying where', () => {
    expect(parseConfigPath('a..b')).toEqual({
      ok: false,
      error: 'Invalid config path: a..b (unexpected "." at character 3)',
    });
    expect(parseConfigPath('a.')).toMatchObject({ ok: false, error: expect.stringContaining('ends with') });
    expect(parseConfigPath('bindings[x]')).toMatchObject({ ok: false });
  });
});
