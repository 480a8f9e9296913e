import { randomUUID } from 'node:crypto';
import { access, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pTimeout from 'p-timeout';
import type { Config } from '../base/config/index.js';
import { type ConfigIssue, errorText } from '../base/errors/index.js';
import { type Logger, logFileOptions } from '../base/logging/index.js';
import { createStore } from '../records/store/index.js';

/** Longer than the store's own connect timeout (5 s for Redis): a guard, not the usual answer. */
const STORE_CHECK_TIMEOUT_MS = 10_000;

/**
 * What a start needs of the machine: a state dir it can create and write in (the HTTP token,
 * the SQLite file, backups and notes live there), a store it can open and, with `log.file`, a
 * directory for the log files. Each is tried for real — a dir by writing and removing a probe
 * file, the store by opening and closing it — and nothing is left behind but the directories
 * themselves, which a start would create too: a SQLite file that does not exist yet is not
 * created, its directory is tried instead.
 */
export async function checkState(config: Config, logger: Logger): Promise<ConfigIssue[]> {
  const stateDir = path.resolve(config.stateDir);
  const stateIssue = await checkWritableDir(stateDir, '/stateDir', 'the state dir');
  const logIssues = await checkLogFile(config);
  if (stateIssue) {
    // The default store is a file in the state dir: it cannot open either, and says nothing new.
    return config.store.url === undefined
      ? [stateIssue, ...logIssues]
      : [stateIssue, ...(await checkStore(config, stateDir, logger)), ...logIssues];
  }
  return [...(await checkStore(config, stateDir, logger)), ...logIssues];
}

/** `log.file`: its directory must be one the gateway can create and write in. */
async function checkLogFile(config: Config): Promise<ConfigIssue[]> {
  const file = logFileOptions(config.log, config.stateDir);
  if (!file) return [];
  const issue = await checkWritableDir(path.dirname(file.path), '/log/file/path', "the log file's directory");
  return issue ? [issue] : [];
}

/**
 * Kernel file systems: nothing the gateway keeps belongs there, and Node's recursive mkdir loops
 * for ever on procfs (a core burnt, the check never ends), so a directory under one is not tried.
 */
const SYSTEM_ROOTS = ['/proc', '/sys', '/dev'] as const;

async function checkWritableDir(dir: string, where: string, what: string): Promise<ConfigIssue | undefined> {
  const root = await systemRootOf(dir);
  if (root !== undefined) {
    return {
      path: where,
      message: `${what} ${dir} is under ${root}, which holds no files to keep state or logs in; choose a directory on a disk`,
    };
  }
  let step = 'create it';
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    step = 'write in it';
    const probe = path.join(dir, `.start-check-${randomUUID()}`);
    await writeFile(probe, '', { mode: 0o600 });
    await rm(probe, { force: true });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { path: where, message: `${what} ${dir} is not usable: cannot ${step} (${code})` };
  }
}

async function checkStore(config: Config, stateDir: string, logger: Logger): Promise<ConfigIssue[]> {
  const url = config.store.url;
  if (url?.startsWith('memory://')) return [];
  const where = url === undefined ? '/stateDir' : '/store/url';
  const sqliteFile =
    url === undefined
      ? path.join(stateDir, 'switchboard.sqlite')
      : url.startsWith('sqlite://')
        ? url.slice(9)
        : undefined;
  if (sqliteFile && !(await exists(sqliteFile))) {
    if (url === undefined) return []; // the state dir, tried already
    const issue = await checkWritableDir(
      path.dirname(path.resolve(sqliteFile)),
      where,
      "the SQLite file's directory",
    );
    return issue ? [issue] : [];
  }
  const opening = createStore({ url, stateDir, logger });
  try {
    const store = await pTimeout(opening, {
      milliseconds: STORE_CHECK_TIMEOUT_MS,
      fallback: () => 'timeout' as const,
    });
    if (store === 'timeout') {
      // Opened after all: close it then, so that the check leaves no connection behind.
      opening.then((late) => late.close()).catch(() => {});
      return [{ path: where, message: `the store did not open within ${STORE_CHECK_TIMEOUT_MS / 1000} s` }];
    }
    await store.close();
    return [];
  } catch (error) {
    const message = errorText(error);
    return [{ path: where, message: message.replace(/^store(\.url)?: /, '') }];
  }
}

/** The system root `dir` is under, as written or once its existing part's links are followed. */
async function systemRootOf(dir: string): Promise<string | undefined> {
  const under = (at: string) => SYSTEM_ROOTS.find((root) => at === root || at.startsWith(`${root}/`));
  return under(dir) ?? under(await realTarget(dir));
}

/** `dir` with the links of its longest existing ancestor followed (what mkdir would reach). */
async function realTarget(dir: string): Promise<string> {
  const rest: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      return path.join(await realpath(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return dir;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
