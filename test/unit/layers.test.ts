import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LayerRules, parseLayerTable, violations } from '../helpers/layers.js';

const root = path.resolve(import.meta.dirname, '../..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

const rules: LayerRules = parseLayerTable(readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
const files = sourceFiles(path.join(root, 'src')).map((file) => ({
  file,
  text: readFileSync(path.join(root, file), 'utf8'),
}));

describe('the import layers of docs/architecture.md', () => {
  it('name every folder under src/, and only those', () => {
    const folders = new Set(files.map((entry) => entry.file.split('/')[1] ?? ''));
    expect([...folders].sort()).toEqual([...rules.keys()].sort());
  });

  it('are kept by every import in src/, with no exceptions', () => {
    expect(violations(files, rules)).toEqual([]);
  });

  it('catch an upward import, an import of a sibling and one past a folder’s index', () => {
    const planted = [
      { file: 'src/store/planted.ts', text: "import { createRouter } from '../routing/index.js';" },
      { file: 'src/channels/planted.ts', text: "import type { Router } from '../routing/index.js';" },
      {
        file: 'src/app/planted.ts',
        text: "export { x } from '../routing/router.js';\nconst m = await import('../cli/index.js');",
      },
      { file: 'src/app/planted-host.ts', text: "import type { GatewayHost } from '../host/index.js';" },
    ];
    expect(violations(planted, rules)).toEqual([
      'src/store/planted.ts imports ../routing/index.js: store may not import routing',
      'src/channels/planted.ts imports ../routing/index.js: channels may not import routing',
      "src/app/planted.ts imports ../routing/router.js: another folder's files are reached through its index.js",
      'src/app/planted.ts imports ../cli/index.js: app may not import cli',
      // The host hands the app what it declares (`app/host-ports.ts`): no arrow from app up to host.
      'src/app/planted-host.ts imports ../host/index.js: app may not import host',
    ]);
  });
});
