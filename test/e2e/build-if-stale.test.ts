import { execFile } from 'node:child_process';
import { appendFile, cp, readFile, stat, symlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { REPO_ROOT } from '../helpers/process.js';

// `npm start` runs `node scripts/build.mjs --if-stale`: it builds dist/ only when the sources
// differ from the stamp of the last build. Here on a copy of the repository's real sources and
// built dist/ (node_modules linked): unchanged or only touched sources skip the build; an edited
// source builds again, with progress, and the edit reaches dist/. One real (incremental) build.

const exec = promisify(execFile);
let root: string;

async function buildIfStale(): Promise<string> {
  const { stdout } = await exec(process.execPath, ['scripts/build.mjs', '--if-stale'], {
    cwd: root,
    timeout: 240_000,
  });
  return stdout;
}

const mainMtime = async () => (await stat(path.join(root, 'dist/main.js'))).mtimeMs;

beforeAll(async () => {
  root = await makeTempDir('switchboard-build-stale-');
  const files = ['src', 'web', 'scripts', 'dist', 'package.json', 'package-lock.json'];
  for (const file of [...files, 'tsconfig.json', 'tsconfig.build.json'])
    await cp(path.join(REPO_ROOT, file), path.join(root, file), {
      recursive: true,
      preserveTimestamps: true,
    });
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  // The repository's own dist/ may be older than its sources (an edit since its last build): then
  // this first run builds, and either way the copy is up to date after it.
  await buildIfStale();
}, 300_000);

afterAll(async () => {
  if (root) await removeDir(root);
});

describe('npm start builds dist/ only when the sources changed', () => {
  it('skips the build when no source changed, even when a source was touched', async () => {
    const before = await mainMtime();
    expect(await buildIfStale()).toMatch(
      /^dist\/ is up to date with the sources \(\d+ files\); not building\./,
    );
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(root, 'src/main.ts'), later, later);
    expect(await buildIfStale()).toContain('dist/ is up to date');
    expect(await mainMtime()).toBe(before);
  });

  it('builds again, showing each step, after a source changed, and then skips again', async () => {
    await appendFile(path.join(root, 'src/main.ts'), "\nexport const buildProbe = 'build-probe-7301';\n");
    const output = await buildIfStale();
    expect(output).toContain('Building dist/ first: changed since the last build: src/main.ts (');
    for (const step of ['build 1/4: compiling TypeScript', 'build 4/4: bundling the control UI'])
      expect(output).toContain(step);
    expect(output).toMatch(/Built dist\/ and web\/dist\/ in [\d.]+ s\./);
    expect(await readFile(path.join(root, 'dist/main.js'), 'utf8')).toContain('build-probe-7301');
    expect(await buildIfStale()).toContain('dist/ is up to date');
  }, 240_000);
});
