import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from '../base/config/index.js';
import { ConfigError, errorText, fail, ok, type Result } from '../base/errors/index.js';
import {
  followLog,
  formatLogLine,
  listLogFiles,
  logFileOptions,
  readLastLinesOf,
} from '../base/logging/index.js';
import type { LogPage } from '../surfaces/control/index.js';
import { cliEnvironment } from './cli-environment.js';
import { printProblem } from './output.js';

interface LogsOptions {
  config?: string;
  envFile?: string;
  lines: string;
  follow?: boolean;
  err?: boolean;
}

/** Where a log is read from: its files oldest first, found again at each look (rotation). */
interface LogSource {
  describe: string;
  files: () => string[];
  /** The config, when it loaded: where a gateway without a log file is found. */
  config?: Config;
}

/**
 * `switchboard logs`: the last lines of the log, formatted for a person, and with `--follow`
 * what is appended after (across rotations) until Ctrl-C. With `log.file` it reads the rotated
 * files (the current one, older ones when it has fewer lines); without, pm2's out log (`--err`:
 * its error log) where ecosystem.config.cjs puts it. Which file is named on stderr, so stdout
 * is the log only. The lines were scrubbed of secrets when they were written.
 */
export async function runLogs(options: LogsOptions): Promise<void> {
  const count = Number(options.lines);
  if (!/^[0-9]+$/.test(options.lines) || !Number.isSafeInteger(count)) {
    return printProblem(`--lines must be a whole number of lines, not ${JSON.stringify(options.lines)}`);
  }
  const source = await findSource(options);
  const files = source.files();
  const current = files.at(-1);
  process.stderr.write(`switchboard: reading ${source.describe}: ${current ?? 'no file yet'}\n`);
  if (!current && !options.follow) return withoutLogFile(source, count);
  const last = await readLastLinesOf(files, count);
  for (const line of last.lines) process.stdout.write(`${formatLogLine(line)}\n`);
  if (options.follow) await follow(source, current ? { file: current, offset: last.end } : undefined);
}

async function findSource(options: LogsOptions): Promise<LogSource> {
  const name = options.err ? 'switchboard.error.log' : 'switchboard.out.log';
  // Where ecosystem.config.cjs has pm2 write them: data/logs under the working directory.
  const pm2Log = path.resolve(process.env.SWITCHBOARD_WORKDIR ?? '.', 'data', 'logs', name);
  const pm2Source = {
    describe: `pm2's ${options.err ? 'error' : 'out'} log`,
    files: () => (existsSync(pm2Log) ? [pm2Log] : []),
  };
  if (options.err) return pm2Source;
  try {
    const environment = cliEnvironment(options);
    if (!environment) return pm2Source;
    const { config } = await loadConfig({ configPath: options.config, environment });
    const file = logFileOptions(config.log, config.stateDir);
    if (!file) return { ...pm2Source, describe: `${pm2Source.describe} (log.file is not set)`, config };
    return { describe: `the log file (log.file) ${file.path}`, files: () => listLogFiles(file.path) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // The operator may be here to find out why the gateway does not start.
    process.stderr.write(`switchboard: the config does not load (${error.message}); trying pm2's log\n`);
    return pm2Source;
  }
}

/**
 * No log file: a gateway started in a terminal (no pm2, no `log.file`) logs to that terminal
 * only. When `<stateDir>/gateway.pid` names a live one, its last lines come from its
 * `/api/logs` (the Logs page's, with the operator token) and stderr says where its log is;
 * else stderr says that no gateway runs from this state dir, and where a log would be.
 */
async function withoutLogFile(source: LogSource, count: number): Promise<void> {
  const { config } = source;
  if (!config) return printProblem(`no log file yet (${source.describe}), and the config does not load`);
  const { pidFileOf, readGatewayPid } = await import('../host/index.js');
  const pid = await readGatewayPid(config.stateDir);
  const keep = 'set "log": { "file": {} } in the config to keep a log file';
  if (!pid.ok) {
    return printProblem(
      `no log file yet (${source.describe}), and no gateway runs from ${path.resolve(config.stateDir)} (no live pid in ${pidFileOf(config.stateDir)}): a gateway started in a terminal logs there, under pm2 to data/logs/; ${keep}`,
    );
  }
  const where = `the running gateway (pid ${pid.value}) logs to the terminal it runs in (no log.file, not under pm2)`;
  const recent = await readRecentLines(config, count);
  if (!recent.ok) return printProblem(`${where}; its /api/logs could not be read (${recent.error}); ${keep}`);
  process.stderr.write(
    `switchboard: ${where}; its last lines from ${recent.value.url}/api/logs (the Logs page); ${keep}\n`,
  );
  for (const line of recent.value.lines) process.stdout.write(`${line}\n`);
}

/** The running gateway's last `count` log lines from `GET /api/logs`, formatted as this command prints them. */
async function readRecentLines(
  config: Config,
  count: number,
): Promise<Result<{ url: string; lines: string[] }, string>> {
  const { reachGateway } = await import('./running-gateway.js');
  const reach = await reachGateway(config);
  if (!reach.ok) return reach;
  const { url, headers } = reach.value;
  try {
    const response = await fetch(`${url}/api/logs`, { headers, signal: AbortSignal.timeout(5000) });
    if (!response.ok) return fail(`HTTP ${response.status}`);
    const page = (await response.json()) as LogPage;
    return ok({
      url,
      lines: page.lines.map((line) => line.text).slice(count === 0 ? page.lines.length : -count),
    });
  } catch (error) {
    return fail(errorText(error));
  }
}

/** Until Ctrl-C (SIGINT) or SIGTERM, which end the command with exit code 0. */
async function follow(source: LogSource, from: { file: string; offset: number } | undefined) {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await followLog({
      files: source.files,
      from,
      onLine: (line) => process.stdout.write(`${formatLogLine(line)}\n`),
      signal: stop.signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
