import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configSchemaText } from '../../src/base/config/config-validator.js';
import { REPO_ROOT } from '../helpers/process.js';

// The built gateway validates its config with the code `npm run build` generated
// (dist/base/config/config-validator.cjs), made from the schema in src; test/unit/config-validator.test.ts
// checks that such code is the same validator as the compiled schema.

const DIST_CONFIG = path.join(REPO_ROOT, 'dist', 'base', 'config');

describe('the built config validator', () => {
  it('is generated from the current schema and is what dist loads', async () => {
    const generated = createRequire(path.join(DIST_CONFIG, 'index.js'))('./config-validator.cjs');
    expect(generated.schemaText).toBe(configSchemaText());
    const built = (await import(pathToFileURL(path.join(DIST_CONFIG, 'config-validator.js')).href)) as {
      loadConfigValidator(): unknown;
    };
    expect(built.loadConfigValidator()).toBe(generated);
  });
});
