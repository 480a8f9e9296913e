import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { describeLoad, describeMachine, fixed } from './report.js';

/**
 * Install time: `git clone` of this checkout's committed HEAD into a temp dir, then `npm ci` there
 * (the registry or npm's cache, the native builds of `allowScripts`, and `prepare`'s build: what a
 * new install costs), timed from spawn to exit; the load average before and after. Not part of
 * `npm run bench` (it takes minutes and downloads whatever npm's cache lacks): run it alone with
 * `npx tsx bench/npm-ci.ts` (`--source <dir>` clones another checkout). The clone is removed after.
 * Not a test: nothing here asserts on time.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceIndex = process.argv.indexOf('--source');
const SOURCE = sourceIndex > 0 ? path.resolve(process.argv[sourceIndex + 1] ?? ROOT) : ROOT;

/** Runs `command` in `cwd` with its output shown; resolves with the seconds it took, rejects on failure. */
function timed(command: string, args: readonly string[], cwd: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve((performance.now() - started) / 1000);
      else reject(new Error(`${command} ${args.join(' ')} in ${cwd} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

const dir = await makeTempDir('switchboard-npm-ci-');
const clone = path.join(dir, 'switchboard');
console.log(`npm ci: ${describeMachine()}, clone of ${SOURCE}`);
try {
  await timed('git', ['clone', '--quiet', SOURCE, clone], dir);
  const loadBefore = describeLoad();
  const seconds = await timed('npm', ['ci', '--no-audit', '--no-fund'], clone);
  console.log(
    `\nnpm ci on a clean clone: ${fixed(seconds)} s (load average before ${loadBefore}, after ${describeLoad()})`,
  );
} finally {
  await removeDir(dir);
}
