import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../base/errors/index.js';
import { readStoreSettings, sqliteFileOf } from './canary.js';
import { git } from './commands.js';
import {
  gatewayEnvironment,
  gatewayLogFile,
  pm2Pid,
  type RestartTarget,
  restartGateway,
  stopGateway,
  watchGateway,
} from './gateway-process.js';
import { LEASE_MS, type UpdateLedger } from './ledger.js';
import {
  addWorktree,
  buildTarget,
  checkStartsWithConfig,
  installDependencies,
  type ProveContext,
  rehearse,
  runCanary,
  worktreeOf,
} from './prove.js';
import { restoreCheckpoint, switchCheckout, writeCheckpoint } from './switch.js';
import { type UpdatePhase, type UpdateRun, versionName } from './types.js';

/** What the updater process is given: the ledger, its run, and how a note reaches the chat. */
export interface UpdaterOptions {
  ledger: UpdateLedger;
  runId: string;
  /** Writes the outcome note to the restart-note path (durable; posted by the gateway that runs). */
  recordNote(run: UpdateRun, text: string): Promise<void>;
  /** Progress lines (the updater's log). */
  log(line: string): void;
}

/** The outcome notes, as the chat reads them. */
export const noteText = {
  done: (run: UpdateRun) => `Gateway updated to ${versionName(run.to)} (from ${versionName(run.from)}).`,
  failed: (run: UpdateRun, phase: UpdatePhase, reason: string) =>
    `Update to ${versionName(run.to)} failed at ${phase}: ${reason}\nStill running ${versionName(run.from)}; nothing was changed.`,
  rolledBack: (run: UpdateRun, reason: string) =>
    `Update to ${versionName(run.to)} rolled back: ${reason}\nRunning ${versionName(run.from)} again.`,
  rollbackFailed: (run: UpdateRun, reason: string, why: string) =>
    `Update to ${versionName(run.to)} rolled back: ${reason}\nThe rollback failed too: ${why}. See docs/updating.md, "Rolling back by hand" (checkpoint: ${run.checkpoint?.dir ?? 'none'}).`,
};

/** The proving steps, in order: any failure leaves the running gateway untouched. */
const PROVING: [UpdatePhase, (context: ProveContext, run: UpdateRun) => Promise<Result<unknown>>][] = [
  ['worktree', addWorktree],
  ['dependencies', installDependencies],
  ['build', buildTarget],
  ['start-check', checkStartsWithConfig],
  // No version has brought a config migration yet: the step is here for the first one.
  ['migration', async () => ok('none')],
];

/**
 * The updater: drives one run from the ledger through its phases (each recorded with its time
 * before it starts), outside the gateway's process tree. Proving steps fail without touching the
 * gateway; from the checkpoint on, a failure rolls back by itself. Resolves to the run as ended.
 */
export async function runUpdater(options: UpdaterOptions): Promise<UpdateRun> {
  const { ledger, runId } = options;
  let run = (await ledger.renew(runId)) as UpdateRun;
  const renewal = setInterval(() => void ledger.renew(runId).catch(() => {}), LEASE_MS / 4);
  renewal.unref();
  const advance = async (phase: UpdatePhase, fields: Partial<UpdateRun> = {}) => {
    options.log(`update ${runId}: ${phase}`);
    run = await ledger.advance(runId, phase, fields);
    return run;
  };
  try {
    const context: ProveContext = {
      root: run.root,
      runDir: run.runDir,
      from: run.from,
      to: run.to,
      configFile: run.configFile,
      cwd: run.cwd,
      startTimeoutMs: run.settings.startTimeoutMs,
      onCanary: async (pid) => {
        run = await ledger.set(runId, { canaryPid: pid });
      },
    };
    for (const [phase, step] of PROVING) {
      await advance(phase);
      const result = await step(context, run);
      if (!result.ok)
        return await finishFailed(
          options,
          await advance('failed', { cause: { phase, reason: result.error } }),
        );
    }
    await advance('rehearsal');
    const rehearsal = await rehearse(context);
    if (!rehearsal.ok)
      return await finishFailed(
        options,
        await advance('failed', { cause: { phase: 'rehearsal', reason: rehearsal.error } }),
      );
    await advance('canary');
    const canary = await runCanary(context, rehearsal.value);
    if (!canary.ok)
      return await finishFailed(
        options,
        await advance('failed', { cause: { phase: 'canary', reason: canary.error } }),
      );
    return await switchAndWatch(options, advance, () => run);
  } finally {
    clearInterval(renewal);
  }
}

async function finishFailed(options: UpdaterOptions, run: UpdateRun): Promise<UpdateRun> {
  const text = noteText.failed(run, run.cause?.phase ?? 'requested', run.cause?.reason ?? 'unknown');
  const noted = await note(options, run, text);
  await git(run.root, 'worktree', 'remove', '--force', worktreeOf(run.runDir));
  return noted;
}

/** Writes the outcome note once (the ledger's `noted` says it was). */
async function note(options: UpdaterOptions, run: UpdateRun, text: string): Promise<UpdateRun> {
  if (run.noted) return run;
  options.log(text);
  if (run.route !== undefined) await options.recordNote(run, text);
  return options.ledger.set(run.id, { noted: true });
}

type Advance = (phase: UpdatePhase, fields?: Partial<UpdateRun>) => Promise<UpdateRun>;

async function switchAndWatch(
  options: UpdaterOptions,
  advance: Advance,
  current: () => UpdateRun,
): Promise<UpdateRun> {
  let run = await advance('checkpoint');
  const store = sqliteFileOf(await readStoreSettings(run.configFile), run.cwd);
  const checkpoint = await writeCheckpoint({
    dir: path.join(run.runDir, 'checkpoint'),
    root: run.root,
    configFile: run.configFile,
    storeFile: store,
  });
  if (!checkpoint.ok)
    return finishFailed(
      options,
      await advance('failed', { cause: { phase: 'checkpoint', reason: checkpoint.error } }),
    );
  run = await advance('switch', { checkpoint: checkpoint.value });
  const target: RestartTarget = {
    launch: run.gateway.launch,
    pid: run.gateway.pid,
    environment: await gatewayEnvironment(run.gateway.pid),
    logFile: gatewayLogFile(run.runDir),
    stopTimeoutMs: run.settings.stopTimeoutMs,
  };
  const switched = await switchCheckout({
    root: run.root,
    build: worktreeOf(run.runDir),
    checkpoint: checkpoint.value,
    to: run.to,
  });
  if (!switched.ok) return rollBack(options, advance, current(), target, 'switch', switched.error, false);
  run = await advance('restart');
  const started = await restartGateway(target);
  if (!started.ok) return rollBack(options, advance, current(), target, 'restart', started.error, true);
  run = await advance('watch', { gateway: { ...run.gateway, pid: started.value } });
  const watched = await watchGateway({
    configFile: run.configFile,
    commit: run.to.commit,
    pid: () => currentPid(current()),
    startTimeoutMs: run.settings.startTimeoutMs,
    watchMs: run.settings.watchMs,
  });
  if (!watched.ok)
    return rollBack(
      options,
      advance,
      current(),
      { ...target, pid: started.value },
      'watch',
      watched.error,
      true,
    );
  await git(run.root, 'worktree', 'remove', '--force', worktreeOf(run.runDir));
  run = await advance('done');
  return note(options, run, noteText.done(run));
}

function currentPid(run: UpdateRun): Promise<number | undefined> {
  const { launch } = run.gateway;
  return launch.supervisor === 'pm2' ? pm2Pid(launch) : Promise.resolve(run.gateway.pid);
}

/**
 * Back to the old version: stop what runs, restore the checkpoint (build, checkout, store,
 * config), start the old version and wait until it is ready with its own commit. The version is
 * remembered as rolled back.
 */
async function rollBack(
  options: UpdaterOptions,
  advance: Advance,
  run: UpdateRun,
  target: RestartTarget,
  phase: UpdatePhase,
  reason: string,
  restarted: boolean,
): Promise<UpdateRun> {
  await advance('rollback', { cause: { phase, reason } });
  await options.ledger.rememberRolledBack(run.to.commit);
  const why = await restoreAndStart(run, target, restarted);
  const at = Date.now();
  if (!why.ok) {
    const ended = await advance('rollback-failed', {
      rollback: { outcome: 'failed', reason: why.error, at },
    });
    return note(options, ended, noteText.rollbackFailed(ended, reason, why.error));
  }
  await git(run.root, 'worktree', 'remove', '--force', worktreeOf(run.runDir));
  const ended = await advance('rolled-back', { rollback: { outcome: 'restored', at } });
  return note(options, ended, noteText.rolledBack(ended, reason));
}

async function restoreAndStart(
  run: UpdateRun,
  target: RestartTarget,
  restarted: boolean,
): Promise<Result<void>> {
  if (!run.checkpoint) return fail('no checkpoint was written');
  if (restarted) {
    const stopped = await stopGateway({ ...target, pid: (await currentPid(run)) ?? target.pid });
    if (!stopped.ok) return stopped;
  }
  const restored = await restoreCheckpoint({ root: run.root, checkpoint: run.checkpoint, from: run.from });
  if (!restored.ok) return restored;
  if (!restarted) return ok(undefined);
  const started = await restartGateway({ ...target, pid: -1 });
  if (!started.ok) return started;
  const ready = await watchGateway({
    configFile: run.configFile,
    commit: run.from.commit,
    pid: async () => (run.gateway.launch.supervisor === 'pm2' ? currentPid(run) : started.value),
    startTimeoutMs: run.settings.startTimeoutMs,
    watchMs: 1000,
  });
  return ready.ok ? ok(undefined) : fail(`the old version did not come back: ${ready.error}`);
}

/** Removes what a finished run keeps (its directory: checkpoint, old build, logs). */
export async function removeRunDir(run: UpdateRun): Promise<void> {
  await rm(run.runDir, { recursive: true, force: true });
}
