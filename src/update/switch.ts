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

/** Renames, or copies and removes across file systems. */
async function move(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  await rm(to, { recursive: true, force: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await cp(from, to, { recursive: true, verbatimSymlinks: true });
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

/**
 * The switch: the old build (dist/, web/dist/) goes to the checkpoint, the proven one takes its
 * place, the checkout moves to the target (`git reset --keep`: the branch follows, local changes
 * are never lost), and a new node_modules (after `npm ci`) replaces the old one. The running
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
    for (const part of BUILT) {
      if (await exists(path.join(root, part)))
        await move(path.join(root, part), path.join(checkpoint.dir, 'old', part));
      if (await exists(path.join(build, part))) await move(path.join(build, part), path.join(root, part));
    }
    const modules = path.join(build, 'node_modules');
    if ((await exists(modules)) && !(await lstat(modules)).isSymbolicLink()) {
      await move(path.join(root, 'node_modules'), path.join(checkpoint.dir, 'old', 'node_modules'));
      await move(modules, path.join(root, 'node_modules'));
    }
    await relocateBuildRecord(build, root);
  } catch (error) {
    return fail(`moving the new build into ${root} failed: ${errorText(error)}`);
  }
  const reset = await git(root, 'reset', '--quiet', '--keep', options.to.commit);
  return reset.ok ? ok(undefined) : reset;
}

/**
 * Undoes a switch (the gateway is stopped): the old build and node_modules back from the
 * checkpoint, the checkout back at `from`, the store and the config file as they were.
 */
export async function restoreCheckpoint(options: {
  root: string;
  checkpoint: Checkpoint;
  from: UpdateVersion;
}): Promise<Result<void>> {
  const { root, checkpoint } = options;
  const old = path.join(checkpoint.dir, 'old');
  try {
    for (const part of [...BUILT, 'node_modules']) {
      if (await exists(path.join(old, part))) await move(path.join(old, part), path.join(root, part));
    }
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
  const reset = await git(root, 'reset', '--quiet', '--keep', options.from.commit);
  return reset.ok ? ok(undefined) : reset;
}
