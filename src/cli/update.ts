import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import { cliEnvironment } from './cli-environment.js';
import { printProblem } from './output.js';

export interface UpdateCommandOptions {
  config?: string;
  envFile?: string;
  notify?: string;
  target?: string;
}

/** What `update` commands share: the config's service, with notes through the restart sentinel. */
async function openService(options: UpdateCommandOptions) {
  const { loadConfig } = await import('../base/config/index.js');
  const gateway = await import('../host/index.js');
  const update = await import('../update/index.js');
  const environment = cliEnvironment(options);
  if (!environment) return undefined;
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await loadConfig({ configPath: options.config, environment });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblem(error.message);
    return undefined;
  }
  const stateDir = path.resolve(loaded.config.stateDir);
  const logger = createLogger({ level: 'warn', destination: process.stderr }).logger;
  const service = gateway.createHostUpdates({
    loaded,
    logger,
    gatewayPid: () => gateway.readGatewayPid(stateDir),
  });
  return { service, update };
}

/** `switchboard update check`: fetches the configured source and prints what is new. */
export async function runUpdateCheck(options: UpdateCommandOptions): Promise<void> {
  const opened = await openService(options);
  if (!opened) return;
  const checked = await opened.service.check();
  if (!checked.ok) return printProblem(checked.error);
  process.stdout.write(`${checked.value.text}\n`);
}

/** `switchboard update status`: the ledger's last run. */
export async function runUpdateStatus(options: UpdateCommandOptions): Promise<void> {
  const opened = await openService(options);
  if (!opened) return;
  const status = await opened.service.status();
  if (!status.ok) return printProblem(status.error);
  process.stdout.write(`${status.value.text}\n`);
}

/**
 * `switchboard update run`: starts the updater (outside this shell's and the gateway's process
 * trees) and prints each phase as the ledger records it, until the outcome. Ctrl-C stops the
 * printing, not the update. Exits 1 unless the update is done.
 */
export async function runUpdateRun(options: UpdateCommandOptions): Promise<void> {
  const { parseNotifyRoute } = await import('./notify.js');
  const route = options.notify === undefined ? undefined : parseNotifyRoute(options.notify);
  if (route && !route.ok) return printProblem(route.error);
  const opened = await openService(options);
  if (!opened) return;
  const started = await opened.service.run({
    by: 'cli',
    route: route?.ok ? route.value : undefined,
    target: options.target,
  });
  if (!started.ok) return printProblem(started.error);
  process.stdout.write(`${started.value.text}\n`);
  if (!started.value.started) return;
  let printed = 1;
  for (;;) {
    await sleep(500);
    const { run } = await opened.service.ledger.read();
    if (run?.id !== started.value.runId) return printProblem('the ledger no longer shows this run');
    const start = run.phases[0]?.at ?? 0;
    for (const entry of run.phases.slice(printed))
      process.stdout.write(`  ${entry.phase} (+${((entry.at - start) / 1000).toFixed(1)} s)\n`);
    printed = run.phases.length;
    const { phase } = run;
    if (!opened.update.isActive(run)) {
      await opened.service.recover();
      const status = await opened.service.status();
      if (status.ok) process.stdout.write(`${status.value.text}\n`);
      if (phase !== 'done') process.exitCode = 1;
      return;
    }
  }
}

/**
 * `switchboard update apply <run>` (started by `update run`, not by hand): the updater itself,
 * driving the run through its phases.
 */
export async function runUpdateApply(runId: string, options: { stateDir: string }): Promise<void> {
  const gateway = await import('../host/index.js');
  const update = await import('../update/index.js');
  const logger = createLogger({ level: 'warn', destination: process.stderr }).logger;
  const stateDir = path.resolve(options.stateDir);
  const ledger = update.createUpdateLedger({ stateDir });
  const run = await update.runUpdater({
    ledger,
    runId,
    log: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
    recordNote: gateway.recordUpdateNote(stateDir, logger),
  });
  if (run.phase !== 'done') process.exitCode = 1;
}
