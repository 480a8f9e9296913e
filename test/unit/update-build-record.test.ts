import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { relocateBuildRecord } from '../../src/update/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

// issue 31 item 4: tsc's incremental record moved with a build names the packages by the path tsc
// will see from the new place (their real path), and the project's own files as before.

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('switchboard-build-record-');
});
afterEach(async () => {
  await removeDir(dir);
});

async function writeRecord(checkout: string, fileNames: string[]): Promise<void> {
  await mkdir(path.join(checkout, 'dist'), { recursive: true });
  await writeFile(path.join(checkout, 'dist', '.tsbuildinfo'), JSON.stringify({ fileNames, version: '5' }));
}

const namesIn = async (checkout: string) =>
  (JSON.parse(await readFile(path.join(checkout, 'dist', '.tsbuildinfo'), 'utf8')) as { fileNames: string[] })
    .fileNames;

describe('relocateBuildRecord', () => {
  it('renames packages to their real path from the new checkout and keeps the project files', async () => {
    const shared = path.join(dir, 'shared', 'node_modules');
    await mkdir(path.join(shared, 'typescript', 'lib'), { recursive: true });
    await writeFile(path.join(shared, 'typescript', 'lib', 'lib.d.ts'), '');
    const from = path.join(dir, 'a');
    const to = path.join(dir, 'runs', 'one', 'build');
    await mkdir(to, { recursive: true });
    await symlink(shared, path.join(to, 'node_modules'));
    // From `a/dist`, the shared packages (a symlink's real path) are ../../shared/…
    await writeRecord(from, ['../../shared/node_modules/typescript/lib/lib.d.ts', '../src/main.ts']);
    await writeRecord(to, await namesIn(from));
    await relocateBuildRecord(from, to);
    expect(await namesIn(to)).toEqual([
      '../../../../shared/node_modules/typescript/lib/lib.d.ts',
      '../src/main.ts',
    ]);
  });

  it('a checkout with its own node_modules: the new checkout links it, so tsc sees the real path', async () => {
    const from = path.join(dir, 'root');
    await mkdir(path.join(from, 'node_modules', 'x'), { recursive: true });
    await writeFile(path.join(from, 'node_modules', 'x', 'index.d.ts'), '');
    const to = path.join(dir, 'build');
    await mkdir(to, { recursive: true });
    await symlink(path.join(from, 'node_modules'), path.join(to, 'node_modules'));
    await writeRecord(to, ['../node_modules/x/index.d.ts', '../src/a.ts']);
    await relocateBuildRecord(from, to);
    expect(await namesIn(to)).toEqual(['../../root/node_modules/x/index.d.ts', '../src/a.ts']);
    // And back: the proven build moved into the checkout names them as the checkout's own again.
    await writeRecord(from, await namesIn(to));
    await relocateBuildRecord(to, from);
    expect(await namesIn(from)).toEqual(['../node_modules/x/index.d.ts', '../src/a.ts']);
  });

  it('leaves a record it cannot read as it is', async () => {
    await mkdir(path.join(dir, 'c', 'dist'), { recursive: true });
    await writeFile(path.join(dir, 'c', 'dist', '.tsbuildinfo'), 'not json');
    await relocateBuildRecord(path.join(dir, 'b'), path.join(dir, 'c'));
    expect(await readFile(path.join(dir, 'c', 'dist', '.tsbuildinfo'), 'utf8')).toBe('not json');
  });
});
