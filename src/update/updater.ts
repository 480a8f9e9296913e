import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { configSchemaChanged } from './source.js';
import { restoreCheckpoint, switchCheckout, writeCheckpoint } from './switch.js';
import { type UpdatePhase, type UpdateRun, versionName } from './types.js';

/** What the updater process is given: the ledger, its run, and how a note reaches the chat. */
export interface UpdaterOptions {
  ledger: UpdateLedger;
  runId: string;
  /**
   * Writes a note to the restart-note path (durable; posted by the gateway that runs): the
   * outcome, or (`kind` 'migration') the config changes waiting for an approval.
   */
  recordNote(run: UpdateRun, text: string, kind?: 'migration'): Promise<void>;
  /** Progress lines (the updater's log). */
  log(line: string): void;
}

/** The restart-note id of a run's note: its outcome, or the config change waiting for approval. */
export function noteId(runId: string, kind?: 'migration'): string {
  return kind ? `update-${runId}-${kind}` : `update-${runId}`;
}

/** The notes, as the chat reads them. */
export const noteText = {
  done: (run: UpdateRun) => `Gateway updated to ${versionName(run.to)} (from ${versionName(run.from)}).`,
  failed: (run: UpdateRun, phase: UpdatePhase, reason: string) =>
    `Update to ${versionName(run.to)} failed at ${phase}: ${reason}\nStill running ${versionName(run.from)}; nothing was changed.`,
  rolledBack: (run: UpdateRun, reason: string) =>
    `Update to ${versionName(run.to)} rolled back: ${reason}\nRunning ${versionName(run.from)} again.`,
  migration: (run: UpdateRun, changes: string) =>
    `Update to ${versionName(run.to)} needs a config change: the current config does not validate against its schema (it changed).\n${changes}\nChange the config (${versionName(run.from)} accepts the change too), then /update approve: the start check runs again and the update goes on. Without an approval within ${MIGRATION_WAIT_MS / 60_000} min it stops; ${versionName(run.from)} keeps running.`,
  rollbackFailed: (run: UpdateRun, reason: string, why: string) =>
    `Update to ${versionName(run.to)} rolled back: ${reason}\nThe rollback failed too: ${why}. See docs/updating.md, "Rolling back by hand" (checkpoint: ${run.checkpoint?.dir ?? 'none'}).`,
};

/** The proving steps before the config's, in order: any failure leaves the running gateway untouched. */
const PROVING: [UpdatePhase, (context: ProveContext, run: UpdateRun) => Promise<Result<unknown>>][] = [
  ['worktree', addWorktree],
  ['dependencies', installDependencies],
  ['build', buildTarget],
];

/** How long a run waits for the approval of a config migration. */
export const MIGRATION_WAIT_MS = 60 * 60_000;
const APPROVAL_POLL_MS = 1000;

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
      if (!result.ok) return await finishFailed(options, advance, run, { phase, reason: result.error });
    }
    const config = await proveConfig(options, advance, context);
    if (!config.ok) return await finishFailed(options, advance, run, config.error);
    await advance('rehearsal');
    const rehearsal = await rehearse(context);
    if (!rehearsal.ok)
      return await finishFailed(options, advance, run, { phase: 'rehearsal', reason: rehearsal.error });
    await advance('canary');
    const canary = await runCanary(context, rehearsal.value);
    if (!canary.ok)
      return await finishFailed(options, advance, run, { phase: 'canary', reason: canary.error });
    return await switchAndWatch(options, advance, () => run);
  } finally {
    clearInterval(renewal);
  }
}

/**
 * The start check and the migration step: the new build's start check against the current config.
 * It passes: migration `none`. It fails and the target changed the config schema: the changes it
 * needs (the check's errors, naming the paths) go to the chat, and the run waits for a second owner
 * approval (`/update approve`), then checks again. It fails otherwise: failed at the start check.
 */
async function proveConfig(
  options: UpdaterOptions,
  advance: Advance,
  context: ProveContext,
): Promise<Result<void, { phase: UpdatePhase; reason: string }>> {
  await advance('start-check');
  const checked = await checkStartsWithConfig(context);
  if (checked.ok) {
    await advance('migration', { migration: { outcome: 'none' } });
    return ok(undefined);
  }
  const changed = await configSchemaChanged(context.root, context.from.commit, context.to.commit);
  if (!changed.ok || !changed.value) return fail({ phase: 'start-check', reason: checked.error });
  let run = await advance('migration', { migration: { outcome: 'needed', changes: checked.error } });
  if (run.route !== undefined)
    await options.recordNote(run, noteText.migration(run, checked.error), 'migration');
  run = await options.ledger.set(run.id, {
    migration: { outcome: 'needed', changes: checked.error, noted: true },
  });
  options.log(`update ${run.id}: waiting for the approval of the config change`);
  const until = Date.now() + MIGRATION_WAIT_MS;
  while (run.migration?.outcome === 'needed' && run.migration.approved === undefined) {
    if (Date.now() > until)
      return fail({
        phase: 'migration',
        reason: `the config change was not approved within ${MIGRATION_WAIT_MS / 60_000} min`,
      });
    await sleep(APPROVAL_POLL_MS);
    run = (await options.ledger.read()).run ?? run;
  }
  const again = await checkStartsWithConfig(context);
  return again.ok ? ok(undefined) : fail({ phase: 'migration', reason: `approved, but ${again.error}` });
}

/**
 * Ends a run that failed before the switch. Its worktree goes first: once the run is `failed` the
 * next may begin and add its own, and a removal still going then would take the new worktree's
 * git directory with it (the new one's `git worktree prune` sees this one half gone).
 */
async function finishFailed(
  options: UpdaterOptions,
  advance: Advance,
  run: UpdateRun,
  cause: { phase: UpdatePhase; reason: string },
): Promise<UpdateRun> {
  await git(run.root, 'worktree', 'remove', '--force', worktreeOf(run.runDir));
  const failed = await advance('failed', { cause });
  return note(options, failed, noteText.failed(failed, cause.phase, cause.reason));
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
    return finishFailed(options, advance, run, { phase: 'checkpoint', reason: checkpoint.error });
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
