import { access, cp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../base/errors/index.js';
import { BUILD_RECORD, relocateBuildRecord } from './build-record.js';
import {
  askCanary,
  canaryLogTail,
  prepareRehearsal,
  type Rehearsal,
  removeRehearsalConfig,
  startCanary,
  waitUntilReady,
} from './canary.js';
import { git, runCommand } from './commands.js';
import type { UpdateVersion } from './types.js';

/** What the proving steps need: the checkout, the run's directory, the versions, the config. */
export interface ProveContext {
  root: string;
  /** `<stateDir>/update/runs/<id>`: the run's worktree, logs, rehearsal and checkpoint. */
  runDir: string;
  from: UpdateVersion;
  to: UpdateVersion;
  configFile: string;
  /** The gateway's working directory (the config's relative paths start there). */
  cwd: string;
  startTimeoutMs: number;
  /** The canary's pid, recorded so that a recovery can end it. */
  onCanary?(pid: number): Promise<void>;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export function worktreeOf(runDir: string): string {
  return path.join(runDir, 'build');
}

/** A separate worktree of the target (detached), beside nothing the running gateway uses. */
export async function addWorktree(context: ProveContext): Promise<Result<string>> {
  const build = worktreeOf(context.runDir);
  await git(context.root, 'worktree', 'remove', '--force', build);
  await rm(build, { recursive: true, force: true });
  await git(context.root, 'worktree', 'prune');
  const added = await git(context.root, 'worktree', 'add', '--detach', build, context.to.commit);
  return added.ok ? ok(build) : added;
}

/**
 * `npm ci` against the target's lockfile, or, when package-lock.json is unchanged, the running
 * checkout's node_modules linked in (the same lockfile installs the same tree).
 */
export async function installDependencies(context: ProveContext): Promise<Result<'reused' | 'installed'>> {
  const build = worktreeOf(context.runDir);
  const same = await git(
    context.root,
    'diff',
    '--quiet',
    context.from.commit,
    context.to.commit,
    '--',
    'package-lock.json',
  );
  const current = path.join(context.root, 'node_modules');
  if (same.ok && (await exists(current))) {
    await symlink(await realpath(current), path.join(build, 'node_modules'), 'dir');
    return ok('reused');
  }
  const installed = await runCommand('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: build,
    timeoutMs: 20 * 60_000,
  });
  return installed.ok ? ok('installed') : installed;
}

/**
 * `npm run build`, then `dist/update-build.json`: the version the build reports on `/readyz`. The
 * running build's `dist/` is copied in first when it has tsc's incremental record
 * (`dist/.tsbuildinfo`, moved to the worktree: build-record.ts): tsc then compiles only what the
 * update changed.
 */
export async function buildTarget(context: ProveContext): Promise<Result<void>> {
  const build = worktreeOf(context.runDir);
  const running = path.join(context.root, 'dist');
  if (await exists(path.join(running, BUILD_RECORD))) {
    await cp(running, path.join(build, 'dist'), { recursive: true });
    await rm(path.join(build, 'dist', 'update-build.json'), { force: true });
    await relocateBuildRecord(context.root, build);
  }
  const built = await runCommand('npm', ['run', 'build', '--silent'], { cwd: build, timeoutMs: 20 * 60_000 });
  if (!built.ok) return built;
  await writeFile(path.join(build, 'dist', 'update-build.json'), `${JSON.stringify(context.to)}\n`);
  return ok(undefined);
}

/** The new build's start check (`doctor`) against the current config, from the gateway's directory. */
export async function checkStartsWithConfig(context: ProveContext): Promise<Result<void>> {
  const main = path.join(worktreeOf(context.runDir), 'dist', 'main.js');
  const checked = await runCommand(process.execPath, [main, 'doctor', '--config', context.configFile], {
    cwd: context.cwd,
    timeoutMs: 5 * 60_000,
  });
  return checked.ok
    ? ok(undefined)
    : fail(`the new version's start check refuses the current config: ${checked.error}`);
}

/** The rehearsal: a copy of the state and the config for the canary (canary.ts). */
export function rehearse(context: ProveContext): Promise<Result<Rehearsal>> {
  return prepareRehearsal({
    dir: path.join(context.runDir, 'rehearsal'),
    configFile: context.configFile,
    cwd: context.cwd,
  });
}

/**
 * The new build on a copy of the state and config, on a spare loopback port: ready on `/readyz`
 * reporting the target version, then answering `/whoami` (no model). Always stopped after.
 */
export async function runCanary(
  context: ProveContext,
  rehearsal: Rehearsal,
): Promise<Result<{ port: number; answer: string }>> {
  const canary = await startCanary({
    build: worktreeOf(context.runDir),
    rehearsal,
    cwd: context.cwd,
    dir: context.runDir,
  });
  try {
    await context.onCanary?.(canary.pid);
    const ready = await waitUntilReady({
      port: rehearsal.port,
      commit: context.to.commit,
      timeoutMs: context.startTimeoutMs,
      exited: canary.exited,
    });
    if (!ready.ok) return fail(`${ready.error}; its log ends: ${await canaryLogTail(context.runDir)}`);
    const answer = await askCanary(rehearsal);
    if (!answer.ok) return answer;
    if (canary.exited())
      return fail(`${canary.exited()}; its log ends: ${await canaryLogTail(context.runDir)}`);
    return ok({ port: rehearsal.port, answer: answer.value });
  } finally {
    await canary.stop();
    await removeRehearsalConfig(rehearsal);
  }
}
