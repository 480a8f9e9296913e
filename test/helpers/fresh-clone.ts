import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, readdir, readFile, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './process.js';

const run = promisify(execFile);

/**
 * A fresh clone of this repository in `target`: the files git knows (tracked and untracked,
 * not ignored, so uncommitted work is included), no `dist/`, no `data/`; then installed as
 * `installLinked` does.
 */
export async function makeFreshClone(target: string): Promise<string> {
  await copyWorkTree(target);
  await installLinked(target);
  return target;
}

/** The files git knows of this checkout (tracked and untracked, not ignored) copied to `target`. */
export async function copyWorkTree(target: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  await mkdir(target, { recursive: true });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const source = path.join(REPO_ROOT, file);
    // A file deleted in the work tree but still tracked is listed; a fresh clone would not have it.
    const stats = await lstat(source).catch(() => undefined);
    if (!stats?.isFile()) continue;
    await cp(source, path.join(target, file));
  }
}

/**
 * `npm install` in a clone without installing: `node_modules` is a symlink to this checkout's
 * (installing again would build SQLite for minutes; it is only read), then the `prepare` script
 * runs, as `npm install` runs it after installing (it builds dist/).
 */
export async function installLinked(clone: string): Promise<void> {
  await symlink(await realpath(path.join(REPO_ROOT, 'node_modules')), path.join(clone, 'node_modules'));
  await run('npm', ['run', 'prepare', '--silent'], { cwd: clone, timeout: 420_000 });
}

/**
 * Every path under `root` (relative) with its permission bits, directories marked with a `/`. A
 * running gateway's short-lived lock files (`*.lock`) may go between the listing and the look at
 * them: one that is gone is not listed.
 */
export async function listModes(root: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = {};
  async function visit(directory: string): Promise<void> {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      const stats = await lstat(full).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (!stats || stats.isSymbolicLink()) continue;
      const relative = path.relative(root, full) + (stats.isDirectory() ? '/' : '');
      modes[relative] = (stats.mode & 0o777).toString(8);
      if (stats.isDirectory()) await visit(full);
    }
  }
  modes['./'] = ((await lstat(root)).mode & 0o777).toString(8);
  await visit(root);
  return modes;
}

/** Every file under `root` whose text contains `needle` (relative paths). */
export async function filesContaining(root: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const [relative] of Object.entries(await listModes(root))) {
    if (relative.endsWith('/')) continue;
    const text = await readFile(path.join(root, relative), 'utf8').catch(() => '');
    if (text.includes(needle)) found.push(relative);
  }
  return found;
}
