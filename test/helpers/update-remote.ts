import { execFile } from 'node:child_process';
import { cp, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { relocateBuildRecord } from '../../src/update/index.js';
import { REPO_ROOT } from './process.js';

const run = promisify(execFile);

/** `git args` in `cwd`, its output trimmed. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    'git',
    ['-c', 'user.name=Update Test', '-c', 'user.email=update@test.invalid', ...args],
    {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return stdout.trim();
}

/**
 * The update tests' world, built once: a local bare repository as the remote holding this
 * repository's HEAD (committed work only), a checkout of it with upstream `origin/main` that the
 * gateway runs from (this repository's `dist/` and `web/dist/` copied in with tsc's incremental
 * record moved along, so that an update's build compiles only what changed; `node_modules` linked:
 * the lockfile is the same), and a work clone to push fixture commits from.
 */
export async function makeUpdateWorld(dir: string) {
  const remote = path.join(dir, 'remote.git');
  const work = path.join(dir, 'work');
  const checkout = path.join(dir, 'checkout');
  await git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  await git(REPO_ROOT, 'push', '--quiet', remote, 'HEAD:refs/heads/main');
  await git(dir, 'clone', '--quiet', remote, work);
  await git(dir, 'clone', '--quiet', remote, checkout);
  await symlink(await realpath(path.join(REPO_ROOT, 'node_modules')), path.join(checkout, 'node_modules'));
  await cp(path.join(REPO_ROOT, 'dist'), path.join(checkout, 'dist'), { recursive: true });
  await cp(path.join(REPO_ROOT, 'web', 'dist'), path.join(checkout, 'web', 'dist'), { recursive: true });
  await relocateBuildRecord(REPO_ROOT, checkout);
  const base = await git(work, 'rev-parse', 'HEAD');

  /** Commits `change` (path → new text, or a function of the old text) on top of `parent` and makes it the remote's main. */
  async function push(
    parent: string,
    subject: string,
    change: Record<string, string | ((old: string) => string)>,
  ) {
    await git(work, 'checkout', '--quiet', '--detach', parent);
    for (const [file, text] of Object.entries(change)) {
      const full = path.join(work, file);
      const next = typeof text === 'string' ? text : text(await readFile(full, 'utf8'));
      await writeFile(full, next);
      await git(work, 'add', file);
    }
    await git(work, 'commit', '--quiet', '-m', subject);
    const commit = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'push', '--quiet', '--force', 'origin', `${commit}:refs/heads/main`);
    return commit;
  }

  return { remote, work, checkout, base, push };
}
