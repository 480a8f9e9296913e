import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { applyEdits, type JSONPath, modify, parse } from 'jsonc-parser';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';

/** A port nobody listens on now, on loopback. */
export function spareLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The store's SQLite file of a config (`store.url` or the state dir's default); undefined for Redis and memory. */
export function sqliteFileOf(
  config: { stateDir: string; store?: { url?: string | undefined } },
  cwd: string,
): string | undefined {
  const url = config.store?.url;
  if (url === undefined) return path.resolve(cwd, config.stateDir, 'switchboard.sqlite');
  return url.startsWith('sqlite://') ? path.resolve(cwd, url.slice('sqlite://'.length)) : undefined;
}

/** The config file's state dir and store, as written (the store file is found from them). */
export async function readStoreSettings(
  configFile: string,
): Promise<{ stateDir: string; store?: { url?: string } }> {
  const config = (parse(await readFile(configFile, 'utf8')) ?? {}) as {
    stateDir?: string;
    store?: { url?: string };
  };
  return { stateDir: config.stateDir ?? './data', ...(config.store ? { store: config.store } : {}) };
}

/** SQLite's online backup of `file` into `target` (the running gateway keeps writing meanwhile). */
export async function backupSqlite(file: string, target: string): Promise<Result<void>> {
  let database: Database.Database | undefined;
  try {
    database = new Database(file, { readonly: true, fileMustExist: true });
    await database.backup(target);
    return ok(undefined);
  } catch (error) {
    return fail(`the online backup of ${file} into ${target} failed: ${errorText(error)}`);
  } finally {
    database?.close();
  }
}

/** The rehearsal: a copy of the state and of the config, for the canary to start on. */
export interface Rehearsal {
  stateDir: string;
  configFile: string;
  port: number;
  token: string;
}

/**
 * Copies the store (SQLite online backup; Redis and memory stores: the canary uses memory) into
 * `dir` and writes the config as a copy beside the original (its relative paths stay right) with
 * the state dir, store, log file, HTTP port and token pointed at the copy, and without Slack and
 * Discord (the canary must not take the live gateway's connections).
 */
export async function prepareRehearsal(options: {
  dir: string;
  configFile: string;
  cwd: string;
}): Promise<Result<Rehearsal>> {
  const stateDir = path.join(options.dir, 'state');
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  let text: string;
  try {
    text = await readFile(options.configFile, 'utf8');
  } catch (error) {
    return fail(`the config ${options.configFile} could not be read: ${errorText(error)}`);
  }
  const config = (parse(text) ?? {}) as { stateDir?: string; store?: { url?: string } };
  const source = sqliteFileOf({ stateDir: config.stateDir ?? './data', store: config.store }, options.cwd);
  const storeUrl =
    source === undefined ? 'memory://' : `sqlite://${path.join(stateDir, 'switchboard.sqlite')}`;
  if (source !== undefined) {
    const exists = await open(source).then(
      (handle) => handle.close().then(() => true),
      () => false,
    );
    if (exists) {
      const copied = await backupSqlite(source, path.join(stateDir, 'switchboard.sqlite'));
      if (!copied.ok) return copied;
    }
  }
  const port = await spareLoopbackPort();
  const token = randomBytes(24).toString('hex');
  const edits: [JSONPath, unknown][] = [
    [['stateDir'], stateDir],
    [['store'], { url: storeUrl }],
    [['log', 'file'], { path: path.join(options.dir, 'logs', 'switchboard') }],
    [['http', 'host'], '127.0.0.1'],
    [['http', 'port'], port],
    [['http', 'token'], token],
    [['channels', 'slack'], undefined],
    [['channels', 'discord'], undefined],
  ];
  let copy = text;
  for (const [at, value] of edits) {
    if (value === undefined && !hasPath(copy, at)) continue;
    copy = applyEdits(
      copy,
      modify(copy, at, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } }),
    );
  }
  const configFile = path.join(
    path.dirname(options.configFile),
    `.update-canary-${path.basename(options.dir)}.jsonc`,
  );
  await writeFile(configFile, copy, { mode: 0o600 });
  return ok({ stateDir, configFile, port, token });
}

function hasPath(text: string, at: JSONPath): boolean {
  let node: unknown = parse(text);
  for (const key of at) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Record<string, unknown>)[String(key)];
  }
  return node !== undefined;
}

/** The rehearsal's config copy goes when the canary is done (its state copy stays with the run). */
export async function removeRehearsalConfig(rehearsal: Rehearsal): Promise<void> {
  await rm(rehearsal.configFile, { force: true });
}

/** What `/readyz` answers, as far as the updater reads it. */
export interface Readiness {
  ready: boolean;
  version?: { commit?: string } | undefined;
  reasons?: { component: string; state: string }[] | undefined;
}

/** One `/readyz` request (2 s at most); undefined when nothing answers. */
export async function readReadiness(port: number, host = '127.0.0.1'): Promise<Readiness | undefined> {
  try {
    const response = await fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
    return (await response.json()) as Readiness;
  } catch {
    return undefined;
  }
}

/** Polls `/readyz` until it is ready (with `commit`, when given); error: the last answer, or that the process exited. */
export async function waitUntilReady(options: {
  port: number;
  host?: string | undefined;
  commit?: string | undefined;
  timeoutMs: number;
  exited?: () => string | undefined;
}): Promise<Result<Readiness>> {
  const until = Date.now() + options.timeoutMs;
  let last: Readiness | undefined;
  while (Date.now() < until) {
    const gone = options.exited?.();
    if (gone) return fail(gone);
    last = await readReadiness(options.port, options.host);
    if (last?.ready && (options.commit === undefined || last.version?.commit === options.commit))
      return ok(last);
    await sleep(250);
  }
  const said = last
    ? last.ready
      ? `it reports version ${last.version?.commit?.slice(0, 7) ?? 'none'}`
      : `not ready: ${(last.reasons ?? []).map((reason) => `${reason.component} ${reason.state}`).join(', ')}`
    : 'nothing answered';
  return fail(
    `/readyz on port ${options.port} did not become ready within ${options.timeoutMs} ms (${said})`,
  );
}

/** A started canary: its process and what it printed. */
export interface Canary {
  child: ChildProcess;
  pid: number;
  /** Set when the process has exited: how, and the end of its output. */
  exited(): string | undefined;
  stop(): Promise<void>;
}

/** Starts `node <build>/dist/main.js start --config <copy>` with its output in `<dir>/canary.log`. */
export async function startCanary(options: {
  build: string;
  rehearsal: Rehearsal;
  cwd: string;
  dir: string;
}): Promise<Canary> {
  const logFile = path.join(options.dir, 'canary.log');
  const log = await open(logFile, 'a', 0o600);
  const child = spawn(
    process.execPath,
    [path.join(options.build, 'dist', 'main.js'), 'start', '--config', options.rehearsal.configFile],
    {
      cwd: options.cwd,
      env: { ...process.env, SWITCHBOARD_CONFIG: options.rehearsal.configFile },
      stdio: ['ignore', log.fd, log.fd],
    },
  );
  await log.close();
  let exit: string | undefined;
  const closed = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = `the canary exited (${signal ?? `code ${code}`})`;
      resolve();
    });
  });
  const exited = () => {
    if (exit === undefined) return undefined;
    return exit;
  };
  return {
    child,
    pid: child.pid ?? -1,
    exited,
    async stop() {
      if (exit !== undefined) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([closed.then(() => true), sleep(15_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await closed;
      }
    },
  };
}

/** The end of the canary's log, for a failure's reason. */
export async function canaryLogTail(dir: string): Promise<string> {
  const text = await readFile(path.join(dir, 'canary.log'), 'utf8').catch(() => '');
  const lines = text.trim().split('\n').slice(-5).join('\n');
  return lines.length > 1200 ? lines.slice(-1200) : lines;
}

/** The no-model command the canary must answer: `/whoami` through the web chat API. */
export async function askCanary(rehearsal: Rehearsal): Promise<Result<string>> {
  try {
    const response = await fetch(`http://127.0.0.1:${rehearsal.port}/api/webchat/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rehearsal.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: '/whoami' }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json().catch(() => ({}))) as { replies?: { text?: string }[] };
    const reply = body.replies?.[0]?.text;
    if (response.status !== 200 || !reply)
      return fail(`the canary answered /whoami with HTTP ${response.status} and no reply`);
    return ok(reply);
  } catch (error) {
    return fail(`the canary did not answer /whoami: ${errorText(error)}`);
  }
}
