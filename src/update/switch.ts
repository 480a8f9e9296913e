import { cp, lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import { relocateBuildRecord } from './build-record.js';
import { backupSqlite } from './canary.js';
import { git } from './commands.js';
import type { Checkpoint, UpdateVersion } from './types.js';

/** The build outputs a switch moves: they are not in git, the rest of the tree is. */
const BUILT = ['dist', path.join('web', 'dist')];

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

async function firstExisting(...files: string[]): Promise<string | undefined> {
  for (const file of files) if (await exists(file)) return file;
  return undefined;
}

/**
 * Renames, or across file systems copies beside `to` and renames the copy into place before the
 * original goes: a kill leaves `from` whole, or `to` whole.
 */
async function move(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  const partial = `${to}.partial`;
  for (const leftover of [to, partial]) await rm(leftover, { recursive: true, force: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await cp(from, partial, { recursive: true, verbatimSymlinks: true });
    await rename(partial, to);
    await rm(from, { recursive: true, force: true });
  }
}

/** A checkout with local changes to tracked files is not switched (git would refuse or lose them). */
export async function checkClean(root: string): Promise<Result<void>> {
  const status = await git(root, 'status', '--porcelain', '--untracked-files=no');
  if (!status.ok) return status;
  if (status.value !== '')
    return fail(
      `${root} has local changes (${status.value.split('\n').length} file(s)): commit or stash them first`,
    );
  return ok(undefined);
}

/**
 * The checkpoint before the switch: the config file's text and an online backup of the SQLite
 * store, in `dir`; the old build is moved there by the switch itself.
 */
export async function writeCheckpoint(options: {
  dir: string;
  root: string;
  configFile: string;
  storeFile: string | undefined;
}): Promise<Result<Checkpoint>> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(path.join(options.dir, 'config'), await readFile(options.configFile), { mode: 0o600 });
  } catch (error) {
    return fail(`the config ${options.configFile} could not be saved: ${errorText(error)}`);
  }
  if (options.storeFile !== undefined && (await exists(options.storeFile))) {
    const backup = await backupSqlite(options.storeFile, path.join(options.dir, 'store.sqlite'));
    if (!backup.ok) return backup;
  }
  const branch = await git(options.root, 'symbolic-ref', '--quiet', '--short', 'HEAD');
  return ok({
    dir: options.dir,
    configFile: options.configFile,
    storeFile: options.storeFile,
    branch: branch.ok ? branch.value : undefined,
  });
}

/** Beside each part of the checkout: the build staged to go in, the one just moved out. */
const staged = (target: string) => `${target}.update-new`;
const aside = (target: string) => `${target}.update-old`;

/**
 * Puts `incoming` (beside `target`, on its file system) in the place of `target`: two renames in
 * one directory, the old one to `aside(target)`. A kill between them leaves `target` missing and
 * `aside(target)` whole: `restoreBuild` (the next look at the ledger) renames it back.
 */
async function swapIn(target: string, incoming: string): Promise<void> {
  if (await exists(target)) {
    await rm(aside(target), { recursive: true, force: true });
    await rename(target, aside(target));
  }
  await rename(incoming, target);
}

/** The parts of the checkout a switch replaces: the builds, and node_modules after an `npm ci`. */
async function switchedParts(build: string): Promise<string[]> {
  const modules = path.join(build, 'node_modules');
  const installed = (await exists(modules)) && !(await lstat(modules)).isSymbolicLink();
  return installed ? [...BUILT, 'node_modules'] : BUILT;
}

/**
 * The switch: the proven build (dist/, web/dist/, and node_modules after an `npm ci`) is first
 * staged beside each part of the checkout (a copy when the run's directory is on another file
 * system), then swapped in by renames, the old part kept in the checkpoint; the checkout moves to
 * the target (`git reset --keep`: the branch follows, local changes are never lost). The running
 * gateway has its code loaded; the restart that follows starts the new one.
 */
export async function switchCheckout(options: {
  root: string;
  build: string;
  checkpoint: Checkpoint;
  to: UpdateVersion;
}): Promise<Result<void>> {
  const { root, build, checkpoint } = options;
  try {
    const parts = await switchedParts(build);
    const present: string[] = [];
    for (const part of parts) {
      if (!(await exists(path.join(build, part)))) continue;
      await move(path.join(build, part), staged(path.join(root, part)));
      present.push(part);
    }
    for (const part of present) await swapIn(path.join(root, part), staged(path.join(root, part)));
    for (const part of present) {
      const old = aside(path.join(root, part));
      if (await exists(old)) await move(old, path.join(checkpoint.dir, 'old', part));
    }
    await relocateBuildRecord(build, root);
  } catch (error) {
    return fail(`moving the new build into ${root} failed: ${errorText(error)}`);
  }
  const reset = await git(root, 'reset', '--quiet', '--keep', options.to.commit);
  return reset.ok ? ok(undefined) : reset;
}

/** Beside each part of the checkout, during a restore: the old build on its way back, the new one going. */
const back = (target: string) => `${target}.update-back`;
const dropped = (target: string) => `${target}.update-drop`;

/**
 * Puts the old build back wherever a switch (finished, or killed part way) or an earlier restore
 * left it: a build only staged is removed; the old part is found beside the checkout (moved aside
 * by a switch, or on its way back) or in the checkpoint, and renamed into place, the new one
 * renamed away first. A kill at any point leaves the old part whole under one of those names for
 * the next call. Then the checkout goes back to `from`.
 */
export async function restoreBuild(options: {
  root: string;
  checkpoint: Checkpoint;
  from: UpdateVersion;
}): Promise<Result<void>> {
  const { root, checkpoint } = options;
  try {
    for (const part of [...BUILT, 'node_modules']) {
      const target = path.join(root, part);
      for (const leftover of [staged(target), dropped(target)])
        await rm(leftover, { recursive: true, force: true });
      let old = await firstExisting(back(target), aside(target));
      if (old === undefined) {
        const kept = path.join(checkpoint.dir, 'old', part);
        if (!(await exists(kept))) continue;
        await move(kept, back(target));
        old = back(target);
      }
      if (await exists(target)) await rename(target, dropped(target));
      await rename(old, target);
      await rm(dropped(target), { recursive: true, force: true });
    }
  } catch (error) {
    return fail(`putting the old build back from ${checkpoint.dir} failed: ${errorText(error)}`);
  }
  const reset = await git(root, 'reset', '--quiet', '--keep', options.from.commit);
  return reset.ok ? ok(undefined) : reset;
}

/**
 * Undoes a switch (the gateway is stopped): the old build and checkout back (`restoreBuild`), the
 * store and the config file as they were.
 */
export async function restoreCheckpoint(options: {
  root: string;
  checkpoint: Checkpoint;
  from: UpdateVersion;
}): Promise<Result<void>> {
  const { checkpoint } = options;
  const build = await restoreBuild(options);
  if (!build.ok) return build;
  try {
    const saved = path.join(checkpoint.dir, 'store.sqlite');
    if (checkpoint.storeFile !== undefined && (await exists(saved))) {
      for (const suffix of ['-wal', '-shm']) await rm(`${checkpoint.storeFile}${suffix}`, { force: true });
      await cp(saved, checkpoint.storeFile);
    }
    await writeFile(checkpoint.configFile, await readFile(path.join(checkpoint.dir, 'config')), {
      mode: 0o600,
    });
  } catch (error) {
    return fail(`restoring the checkpoint ${checkpoint.dir} failed: ${errorText(error)}`);
  }
  return ok(undefined);
}
