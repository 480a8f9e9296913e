import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { conceptOf, readSources } from '../helpers/import-graph.js';
import { type LayerRules, parseLayerTable, violations } from '../helpers/layers.js';

const root = path.resolve(import.meta.dirname, '../..');
const rules: LayerRules = parseLayerTable(readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
const files = readSources(root);

describe('the import layers of docs/architecture.md', () => {
  it('name every folder under src/ (a tier folder’s concepts by their path), and only those', () => {
    const folders = new Set(files.map((entry) => conceptOf(entry.file)));
    expect([...folders].sort()).toEqual([...rules.folders.values()].sort());
  });

  it('are kept by every import in src/, with no exceptions', () => {
    expect(violations(files, rules)).toEqual([]);
  });

  it('catch an upward import, an import of a sibling and one past a folder’s index', () => {
    const store = `src/${rules.folders.get('store')}`;
    const channels = `src/${rules.folders.get('channels')}`;
    const routing = `src/${rules.folders.get('routing')}`;
    const cli = `src/${rules.folders.get('cli')}`;
    const relative = (from: string, to: string) => path.posix.relative(from, to);
    const planted = [
      {
        file: `${store}/planted.ts`,
        text: `import { createRouter } from '${relative(store, routing)}/index.js';`,
      },
      {
        file: `${channels}/planted.ts`,
        text: `import type { Router } from '${relative(channels, routing)}/index.js';`,
      },
      {
        file: `${channels}/planted-too.ts`,
        text: `export { x } from '${relative(channels, routing)}/router.js';\nconst m = await import('${relative(channels, cli)}/index.js');`,
      },
    ];
    expect(violations(planted, rules)).toEqual([
      `${store}/planted.ts imports ${relative(store, routing)}/index.js: store may not import routing`,
      `${channels}/planted.ts imports ${relative(channels, routing)}/index.js: channels may not import routing`,
      `${channels}/planted-too.ts imports ${relative(channels, routing)}/router.js: channels may not import routing`,
      `${channels}/planted-too.ts imports ${relative(channels, cli)}/index.js: channels may not import cli`,
    ]);
  });

  it('keep the app below the host: the host hands it what it declares (`app/host-ports.ts`)', () => {
    const app = `src/${rules.folders.get('app')}`;
    const specifier = `${path.posix.relative(app, `src/${rules.folders.get('host')}`)}/index.js`;
    expect(
      violations(
        [{ file: `${app}/planted.ts`, text: `import type { GatewayHost } from '${specifier}';` }],
        rules,
      ),
    ).toEqual([`${app}/planted.ts imports ${specifier}: app may not import host`]);
  });

  it('reach another folder only through its index.js', () => {
    const gateway = `src/${rules.folders.get('cli')}`;
    const config = `src/${rules.folders.get('config')}`;
    const specifier = `${path.posix.relative(gateway, config)}/schema.js`;
    expect(
      violations([{ file: `${gateway}/planted.ts`, text: `import { x } from '${specifier}';` }], rules),
    ).toEqual([
      `${gateway}/planted.ts imports ${specifier}: another folder's files are reached through its index.js`,
    ]);
  });
});
