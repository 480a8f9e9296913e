import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Helpers for tests that run the built gateway (`dist/main.js`) as a real process. */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN_SCRIPT = path.join(REPO_ROOT, 'dist', 'main.js');
export const PROCESS_TEST_TOKEN = 'process-test-token-0123456789';
export const WEBCHAT_SESSION_KEY = 'agent:main:webchat:direct:local';

/** One pino JSON line from the gateway's stdout or log file. */
export interface LogLine {
  msg?: string;
  pid?: number;
  url?: string;
  restarts?: number;
  signal?: string;
  level?: number;
  [key: string]: unknown;
}

/** The environment for a child: this one without SWITCHBOARD_* settings that would leak into the test. */
export function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of Object.keys(environment)) if (name.startsWith('SWITCHBOARD_')) delete environment[name];
  return { ...environment, ...extra };
}

/** Writes a config file (JSONC, with a comment to prove comments parse) and returns its path. */
export async function writeConfig(dir: string, config: unknown, name = 'gateway.jsonc'): Promise<string> {
  const file = path.join(dir, name);
  const text = typeof config === 'string' ? config : JSON.stringify(config, null, 2);
  // 0600 as an operator keeps a config holding secrets (doctor warns about a looser one).
  await writeFile(file, `// written by a process test\n${text}\n`, { mode: 0o600 });
  return file;
}

/** Parses the JSON lines of a log; other lines (pm2 notices, stack traces) are skipped. */
export function parseLogLines(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {}
  }
  return lines;
}

export async function readLogFile(file: string): Promise<LogLine[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return parseLogLines(text);
}

export const isReadyLine = (line: LogLine): boolean => line.msg?.startsWith('Switchboard ready') === true;
export const countMessages = (lines: LogLine[], message: string): number =>
  lines.filter((line) => line.msg === message).length;

/**
 * Calls `probe` until it returns something other than undefined or false, and returns that.
 * Errors thrown by the probe count as "not yet" (a server mid-restart refuses connections).
 * Bounded: after `timeoutMs` it throws, naming what it waited for (a function is read then) and the last error.
 */
export async function pollUntil<T>(
  description: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const result = await probe();
      if (result !== undefined && result !== false) return result;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
  const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
  const what = typeof description === 'function' ? description() : description;
  throw new Error(`timed out waiting for ${what}${reason}`);
}

/** The reply to `POST /api/webchat/messages`. */
export interface MessageResult {
  sessionKey: string;
  replies: { id: string; text: string }[];
}

/** An authenticated JSON request; the body is parsed when it is JSON (`Body` is what the caller expects). */
export async function request<Body = unknown>(
  baseUrl: string,
  method: string,
  route: string,
  body?: unknown,
  token = PROCESS_TEST_TOKEN,
): Promise<{ status: number; body: Body }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed as Body };
}

/** Sends a web chat message as the local user. */
export function sendMessage(baseUrl: string, text: string): Promise<{ status: number; body: MessageResult }> {
  return request<MessageResult>(baseUrl, 'POST', '/api/webchat/messages', { text });
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A gateway started as `node dist/main.js …`, with its output collected. */
export interface GatewayProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  logLines(): LogLine[];
  /** Resolves when the process has exited (at once when it already has). */
  exited: Promise<ExitStatus>;
  /** Waits until at least `count` ready lines were logged; returns the URL of the newest. */
  waitForReady(count?: number): Promise<string>;
}

// Every child a test starts, so that afterEach can end the ones a failed test left running.
const running = new Set<ChildProcess>();

export function spawnGateway(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; nice?: number; main?: string } = {},
): GatewayProcess {
  // `nice` (an exec, so the pid stays the gateway's): a load test's crowd of processes then takes
  // the CPU only when the other test files running beside it leave some.
  const command =
    options.nice === undefined ? [process.execPath] : ['nice', '-n', String(options.nice), process.execPath];
  const [file = process.execPath, ...prefix] = command;
  const child = spawn(file, [...prefix, options.main ?? MAIN_SCRIPT, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? childEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // 'close' rather than 'exit': by then both pipes are drained, so the output is complete.
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const handle: GatewayProcess = {
    child,
    pid: child.pid ?? -1,
    stdout: () => stdout,
    stderr: () => stderr,
    logLines: () => parseLogLines(stdout),
    exited,
    async waitForReady(count = 1) {
      // The description is read at the timeout, so it shows what the gateway had printed by then.
      const waitedFor = () =>
        `ready line #${count} (stderr: ${stderr.slice(0, 500)}; stdout ends: ${stdout.slice(-1500)})`;
      const line = await pollUntil(waitedFor, () => {
        if (done) throw new Error(`gateway exited before it was ready: ${stderr}`);
        const ready = handle.logLines().filter(isReadyLine);
        return ready.length >= count ? ready.at(-1) : undefined;
      });
      return String(line.url);
    },
  };
  return handle;
}

/** A CLI command run on a pseudo-terminal (script(1)): stdout is a TTY, as for a person at a shell. */
export interface TerminalProcess {
  /** What the terminal showed so far (stdout and stderr together). */
  output(): string;
  /** Types on the terminal's keyboard (`\r` is Enter). */
  type(text: string): void;
  /** Waits until the output after `from` (an offset) matches; returns the offset past the match. */
  waitFor(pattern: RegExp, from?: number, timeoutMs?: number): Promise<number>;
  /** Sends a signal to the command itself (not to script); kills script when the pid is not known yet. */
  kill(signal: NodeJS.Signals): void;
  closed: Promise<void>;
  /** The command's exit code, as script(1) passes it on (`-e`); null when killed. */
  exitCode: Promise<number | null>;
}

/**
 * Runs `args` on a pseudo-terminal: after `command`, the program and its first arguments (the built
 * CLI, `node dist/main.js`, unless told; `['npm', 'start']` or `['npx', 'switchboard']` as a person
 * types them).
 */
export function spawnOnTerminal(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; command?: readonly string[] } = {},
): TerminalProcess {
  // `echo pid=$$` then `exec` names the command's pid.
  const command = options.command ?? [process.execPath, MAIN_SCRIPT];
  const quoted = [...command, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`);
  const child = spawn('script', ['-qfec', `echo pid=$$; exec ${quoted.join(' ')}`, '/dev/null'], {
    env: options.env ?? childEnvironment(),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exitCode = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    output: () => output,
    type: (text) => void child.stdin?.write(text),
    async waitFor(pattern, from = 0, timeoutMs = 20_000) {
      const probe = () => {
        const match = pattern.exec(output.slice(from));
        return match ? from + match.index + match[0].length : undefined;
      };
      return pollUntil(`${pattern} on the terminal`, probe, { timeoutMs, intervalMs: 50 }).catch(
        (error: Error) => {
          throw new Error(
            `${error.message}; the terminal shows: ${JSON.stringify(output.slice(from).slice(-600))}`,
          );
        },
      );
    },
    kill(signal) {
      const pid = Number(/pid=(\d+)/.exec(output)?.[1]);
      if (pid > 0) process.kill(pid, signal);
      else child.kill('SIGKILL');
    },
    closed: exitCode.then(() => undefined),
    exitCode,
  };
}

/** Runs a CLI command to its end (killed after `timeoutMs` so that a hang fails instead of blocking). */
export async function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; nice?: number; cwd?: string } = {},
): Promise<ExitStatus & { stdout: string; stderr: string }> {
  const gateway = spawnGateway(args, {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.nice === undefined ? {} : { nice: options.nice }),
  });
  const timer = setTimeout(() => gateway.child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  const status = await gateway.exited;
  clearTimeout(timer);
  return { ...status, stdout: gateway.stdout(), stderr: gateway.stderr() };
}

/** Ends every child still running (SIGKILL: the test that owned it has already failed or finished). */
export async function killRunningChildren(): Promise<void> {
  const children = [...running];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          if (!child.kill('SIGKILL')) resolve();
        }),
    ),
  );
}

/** Runs a command such as pm2 and returns its output; rejects on a non-zero exit or after `timeoutMs`. */
export function runCommand(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env,
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}
