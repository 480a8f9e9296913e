import { randomUUID } from 'node:crypto';
import { mkdir, readlink, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UpdateConfig } from '../base/config/index.js';
import { fail, ok, type Result } from '../base/errors/index.js';
import type { DeliveryRoute } from '../base/messages/index.js';
import { describeLaunch } from './gateway-process.js';
import { launchUpdater, removeEndedUpdater } from './launch.js';
import {
  createUpdateLedger,
  isActive,
  isStale,
  LEASE_MS,
  processAlive,
  type UpdateLedger,
  updateDir,
} from './ledger.js';
import {
  checkForUpdate,
  checkoutRoot,
  describeCheck,
  fetchSource,
  resolveSource,
  runningVersion,
  versionAt,
} from './source.js';
import { checkClean, restoreBuild } from './switch.js';
import { isOutcome, type UpdateCheck, type UpdateRun, versionName } from './types.js';

/** The package's top directory, as this build sees it (`dist/update/` is two levels down). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface UpdateServiceOptions {
  /** The checkout the gateway runs from (default: this build's package root). */
  root?: string | undefined;
  /** The config file, absolute. */
  configFile: string;
  /** The state dir, absolute. */
  stateDir: string;
  settings: UpdateConfig;
  /** `gateway.drainTimeoutMs`: a stop gets this long plus 10 s before SIGKILL. */
  drainTimeoutMs: number;
  /** The gateway's pid (in the gateway: its own; from the shell: the pid file's), or why none runs. */
  gatewayPid(): Promise<Result<number>>;
  /** Writes a note to the restart-note path: durable, posted once by the gateway that runs. */
  recordNote(run: UpdateRun, text: string, kind?: 'migration'): Promise<void>;
  /** Called when a followed run has ended (the gateway wakes its restart-note delivery). */
  wake?: (() => void) | undefined;
}

/** How often a followed run's ledger is read. */
const FOLLOW_MS = 1000;
/** How long a followed run's updater may take to end after its outcome (it ends just after its note). */
const UPDATER_END_MS = 30_000;

/** Who asks for an update and where its outcome goes. */
export interface UpdateRequest {
  by: string;
  route?: DeliveryRoute | undefined;
  sessionKey?: string | undefined;
  /** A commit or tag to update to instead of the source's head (an owner naming a version that rolled back). */
  target?: string | undefined;
}

/** What `update.run` answers at once: the run started (its outcome comes as a note), or nothing to do. */
export type UpdateStarted =
  | { started: true; runId: string; from: string; to: string; text: string }
  | { started: false; text: string };

export type UpdateService = ReturnType<typeof createUpdateService>;

/**
 * The gateway's and the shell's side of updates: check, start a run (the updater goes outside
 * the gateway's process tree), read the ledger, end a stale run with its note. Answers are
 * Results with words for a chat; nothing here throws for an expected failure.
 */
export function createUpdateService(options: UpdateServiceOptions) {
  const ledger = createUpdateLedger({ stateDir: options.stateDir });
  const root = options.root ?? PACKAGE_ROOT;

  async function check(): Promise<Result<UpdateCheck & { text: string }>> {
    const top = await checkoutRoot(root);
    if (!top.ok) return top;
    const { rolledBack } = await ledger.read();
    const checked = await checkForUpdate({ root: top.value, settings: options.settings, rolledBack });
    return checked.ok ? ok({ ...checked.value, text: describeCheck(checked.value) }) : checked;
  }

  async function run(request: UpdateRequest): Promise<Result<UpdateStarted>> {
    await recover();
    const current = (await ledger.read()).run;
    if (current && isActive(current))
      return fail(
        `an update is already running (run ${current.id} to ${versionName(current.to)}, phase ${current.phase}, asked by ${current.by}); see update.status`,
      );
    const planned = await planRun(options, root, (await ledger.read()).rolledBack, request);
    if (!planned.ok) return planned;
    if ('started' in planned.value) return ok(planned.value);
    const { id, runDir, from, to } = planned.value;
    const begun = await ledger.begin(planned.value);
    if (!begun.ok) return begun;
    await mkdir(runDir, { recursive: true, mode: 0o700 });
    const launched = await launchUpdater({ run: begun.value, main: path.join(root, 'dist', 'main.js') });
    if (!launched.ok) {
      const ended = await ledger.advance(id, 'failed', {
        cause: { phase: 'requested', reason: launched.error },
      });
      return fail(`the updater did not start: ${launched.error} (run ${ended.id})`);
    }
    await ledger.set(id, { lease: { pid: launched.value, expiresAt: Date.now() + LEASE_MS } });
    void follow();
    return ok({
      started: true,
      runId: id,
      from: versionName(from),
      to: versionName(to),
      text: `Updating ${versionName(from)} → ${versionName(to)} (run ${id}): proving the new version while this one serves; the outcome is posted here.`,
    });
  }

  const recover = () => recoverStaleRun(ledger, options.recordNote);

  async function status(): Promise<
    Result<{ run?: UpdateRun | undefined; rolledBack: string[]; text: string }>
  > {
    await recover();
    const file = await ledger.read();
    return ok({ run: file.run, rolledBack: file.rolledBack, text: describeRun(file.run, file.rolledBack) });
  }

  /**
   * Removes the latest run's updater app from pm2 once it has ended (see `removeEndedUpdater`),
   * and the directories of runs that ended more than `keepMs` ago (the old build, the checkpoint).
   */
  async function prune(now = Date.now()): Promise<void> {
    const file = await ledger.read();
    if (file.run && isOutcome(file.run.phase)) await removeEndedUpdater(file.run).catch(() => false);
    for (const entry of [file.run, ...file.history]) {
      const ended = entry?.phases.at(-1);
      if (!entry || !ended || !isOutcome(entry.phase) || now - ended.at <= options.settings.keepMs) continue;
      await rm(entry.runDir, { recursive: true, force: true });
    }
  }

  let following = false;
  let wokenFor: string | undefined;
  /**
   * While a run is active, reads the ledger every second; once it has ended (or went stale and was
   * ended here) calls `wake`, so that a running gateway posts the outcome note now. One at a time;
   * its timer does not hold the process open.
   */
  async function follow(): Promise<void> {
    if (following || options.wake === undefined) return;
    following = true;
    try {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS).unref());
        if (await recover()) break;
        const { run: current } = await ledger.read();
        // Ended, and its note written (or nobody left to write it).
        if (current === undefined) break;
        if (isActive(current)) {
          // A config change waiting for approval: its note is posted now, once.
          if (current.migration?.outcome === 'needed' && current.migration.noted && wokenFor !== current.id) {
            wokenFor = current.id;
            options.wake();
          }
          continue;
        }
        if (current.noted || !current.route || !processAlive(current.lease.pid)) break;
      }
      options.wake();
      const { run: ended } = await ledger.read();
      if (ended && isOutcome(ended.phase)) await removeEndedUpdater(ended, UPDATER_END_MS).catch(() => false);
    } finally {
      following = false;
    }
  }

  const approve = (request: { by: string }) => approveMigration(ledger, request);

  return { check, run, approve, status, recover, prune, follow, ledger };
}

/**
 * Ends a run whose updater was killed or hung: what it left running (its canary, its build) is
 * stopped, a switch it was in the middle of is undone (the gateway that runs is still the old
 * one: the restart comes after the switch), and the note says which version runs now. Resolves
 * to the run it ended, if any.
 */
async function recoverStaleRun(
  ledger: UpdateLedger,
  recordNote: UpdateServiceOptions['recordNote'],
): Promise<UpdateRun | undefined> {
  const { run: current } = await ledger.read();
  if (!isStale(current)) return undefined;
  stopLeftovers(current);
  let reason = `the updater stopped during ${current.phase} (killed or hung)`;
  if (current.phase === 'switch' && current.checkpoint) {
    const undone = await restoreBuild({
      root: current.root,
      checkpoint: current.checkpoint,
      from: current.from,
    });
    reason += undone.ok
      ? '; the switch was undone'
      : `; undoing the switch failed: ${undone.error} (docs/updating.md: rolling back by hand)`;
  }
  const running = await runningVersion(current.root);
  const now = running.ok ? versionName(running.value) : 'unknown';
  const ended = await ledger.advance(current.id, 'interrupted', {
    cause: { phase: current.phase, reason },
  });
  if (current.route !== undefined && !current.noted)
    await recordNote(ended, `Update to ${versionName(current.to)} interrupted: ${reason}. Running ${now}.`);
  return ledger.set(current.id, { noted: true });
}

/**
 * The second owner approval of a run waiting for a config migration: the updater checks the
 * config again and goes on (or stops, saying why).
 */
async function approveMigration(
  ledger: UpdateLedger,
  request: { by: string },
): Promise<Result<{ text: string }>> {
  const { run: current } = await ledger.read();
  if (!current || !isActive(current) || current.migration?.outcome !== 'needed' || current.migration.approved)
    return fail('no update is waiting for the approval of a config change; see update.status');
  await ledger.set(current.id, {
    migration: { ...current.migration, approved: { by: request.by, at: Date.now() } },
  });
  return ok({
    text: `Approved: the update to ${versionName(current.to)} checks the config again and goes on; the outcome is posted here.`,
  });
}

/**
 * Stops what a killed updater left running: its canary, and its children (the build's npm and
 * tsc), which are in the updater's process group (it runs in its own session). The group is
 * signalled only when the updater is dead (its pid is then not reused while the group exists).
 */
function stopLeftovers(run: UpdateRun): void {
  const signal = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  };
  if (run.canaryPid !== undefined && processAlive(run.canaryPid)) signal(run.canaryPid);
  if (!processAlive(run.lease.pid)) signal(-run.lease.pid);
}

/**
 * What `update.run` would do: refused (not a clean git checkout, no source, no gateway), nothing to
 * do (already there, or the version rolled back before and was not named), or the run to begin.
 */
async function planRun(
  options: UpdateServiceOptions,
  root: string,
  rolledBack: readonly string[],
  request: UpdateRequest,
): Promise<Result<UpdateRun | { started: false; text: string }>> {
  const top = await checkoutRoot(root);
  if (!top.ok) return top;
  const clean = await checkClean(top.value);
  if (!clean.ok) return clean;
  const source = await resolveSource(top.value, options.settings.source);
  if (!source.ok) return source;
  const fetched = await fetchSource(top.value, source.value);
  if (!fetched.ok) return fetched;
  const from = await runningVersion(top.value);
  if (!from.ok) return from;
  const to = await versionAt(top.value, request.target ?? fetched.value);
  if (!to.ok) return fail(`${request.target ?? fetched.value} is not a commit of ${top.value}: ${to.error}`);
  if (to.value.commit === from.value.commit)
    return ok({ started: false, text: `Already running ${versionName(from.value)}: nothing to update.` });
  if (request.target === undefined && rolledBack.includes(to.value.commit))
    return ok({
      started: false,
      text: `${versionName(to.value)} rolled back before; it is not tried again unless an owner names it (update.run with target ${to.value.commit.slice(0, 7)}).`,
    });
  const pid = await options.gatewayPid();
  if (!pid.ok) return pid;
  const launch = await describeLaunch(pid.value);
  if (!launch.ok) return launch;
  const cwd = await readlink(`/proc/${pid.value}/cwd`).catch(() => process.cwd());
  const id = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`;
  const now = Date.now();
  const runDir = path.join(updateDir(options.stateDir), 'runs', id);
  return ok({
    id,
    requestedAt: now,
    by: request.by,
    route: request.route,
    sessionKey: request.sessionKey,
    root: top.value,
    configFile: options.configFile,
    stateDir: options.stateDir,
    cwd,
    runDir,
    settings: {
      watchMs: options.settings.watchMs,
      startTimeoutMs: options.settings.startTimeoutMs,
      keepMs: options.settings.keepMs,
      stopTimeoutMs: options.drainTimeoutMs + 10_000,
    },
    source: source.value,
    from: from.value,
    to: to.value,
    phase: 'requested',
    phases: [{ phase: 'requested', at: now }],
    lease: { pid: process.pid, expiresAt: now + LEASE_MS },
    gateway: { pid: pid.value, launch: launch.value },
  });
}

/** `update.status` in words. */
export function describeRun(run: UpdateRun | undefined, rolledBack: readonly string[]): string {
  if (!run) return 'No update has run here.';
  const start = run.phases[0]?.at ?? run.requestedAt;
  const phases = run.phases
    .map((entry) => `${entry.phase} +${((entry.at - start) / 1000).toFixed(1)} s`)
    .join(', ');
  const lines = [
    `Update ${run.id}: ${versionName(run.from)} → ${versionName(run.to)}, asked by ${run.by}; ${run.phase}${isActive(run) ? ' (running)' : ''}.`,
    `Phases: ${phases}.`,
  ];
  if (run.migration?.outcome === 'none') lines.push('Config migration: none (the config validates).');
  else if (run.migration)
    lines.push(
      run.migration.approved
        ? `Config change approved by ${run.migration.approved.by}.`
        : `Waiting for a config change and its approval (/update approve):\n${run.migration.changes}`,
    );
  if (run.cause) lines.push(`Cause: ${run.cause.phase}: ${run.cause.reason}`);
  if (run.rollback)
    lines.push(`Rollback: ${run.rollback.outcome}${run.rollback.reason ? ` (${run.rollback.reason})` : ''}.`);
  if (rolledBack.length > 0)
    lines.push(
      `Rolled back before (not tried again unless named): ${rolledBack.map((commit) => commit.slice(0, 7)).join(', ')}.`,
    );
  return lines.join('\n');
}
