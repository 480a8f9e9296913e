import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Node 20 is the target (`engines.node` in package.json): every installed package must accept it.
// A package whose `engines.node` excludes every 20.x (cookie@2's ">=22") would make `npm install`
// warn EBADENGINE and may use what Node 20 lacks. Only what is installed is read (an optional
// package for another platform is not there), nested node_modules included.
const semver = createRequire(import.meta.url)('semver') as {
  validRange(range: string): string | null;
  intersects(a: string, b: string): boolean;
};

const root = path.resolve(import.meta.dirname, '../..');
const TARGET = '20.x';

interface Installed {
  where: string;
  name: string;
  version: string;
  node: string | undefined;
}

function installedIn(modules: string): Installed[] {
  if (!existsSync(modules)) return [];
  const found: Installed[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    const directory = path.join(modules, entry.name);
    if (entry.name.startsWith('@')) {
      found.push(...installedIn(directory));
      continue;
    }
    const manifest = path.join(directory, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
        engines?: { node?: unknown };
      };
      const node = typeof json.engines?.node === 'string' ? json.engines.node : undefined;
      found.push({
        where: path.relative(root, directory),
        name: json.name ?? entry.name,
        version: json.version ?? '?',
        node,
      });
    }
    found.push(...installedIn(path.join(directory, 'node_modules')));
  }
  return found;
}

/** Each installed package whose `engines.node` admits no Node 20 release, as `name@version (range) at path`. */
function excludingNode20(modules: string): string[] {
  return installedIn(modules)
    .filter(({ node }) => node !== undefined && !(semver.validRange(node) && semver.intersects(node, TARGET)))
    .map(({ name, version, node, where }) => `${name}@${version} (engines.node "${node}") at ${where}`);
}

describe('the installed packages', () => {
  it('are many (the walk reads node_modules, nested ones included)', () => {
    const all = installedIn(path.join(root, 'node_modules'));
    expect(all.length).toBeGreaterThan(100);
    expect(all.some((entry) => entry.where.includes('/node_modules/', 'node_modules/'.length))).toBe(true);
  });

  it('all accept Node 20 in engines.node', () => {
    expect(excludingNode20(path.join(root, 'node_modules'))).toEqual([]);
  });

  it('the check names a package that excludes Node 20, and passes one that does not', () => {
    expect(semver.intersects('>=22', TARGET)).toBe(false);
    expect(semver.intersects('^20.19.0 || >=22.12.0', TARGET)).toBe(true);
    expect(semver.intersects('>=18', TARGET)).toBe(true);
  });
});
