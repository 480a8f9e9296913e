import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { OWNER_ONLY_REFUSAL, roleRefusal, type Tool } from '../../../engine/tools/index.js';
import { type BuiltinToolpackOptions, ensureWorkspace, resolveAgentPath } from './paths.js';

/** How long the pipes may stay open after the shell exits (a grandchild holding them) before we stop. */
const CLOSE_GRACE_MS = 200;

/**
 * The whole environment of a command: nothing of the gateway's (its tokens and API keys live in
 * `process.env`). PATH and LANG are the gateway's, or plain defaults.
 */
export function shellEnvironment(workspace: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: workspace,
    LANG: process.env.LANG ?? 'C.UTF-8',
  };
}

/** The arguments, with the limits of `tools.shell` (Suzumio's `cwd` and `maxOutputBytes` among them). */
function shellExecParameters(maxTimeoutMs: number, maxOutputBytes: number) {
  return Type.Object(
    {
      command: Type.String({
        minLength: 1,
        maxLength: 100_000,
        description: 'Shell command line, run with /bin/sh -c in your workspace (/workspace).',
      }),
      timeoutMs: Type.Optional(
        Type.Integer({
          minimum: 100,
          maximum: maxTimeoutMs,
          description: `Kill the command after this many milliseconds (default and maximum ${maxTimeoutMs}).`,
        }),
      ),
      cwd: Type.Optional(
        Type.String({
          minLength: 1,
          description:
            "Directory to run in (Suzumio's key): /workspace/… (relative paths are in /workspace) or your own /artifacts/<agentId>/…; default /workspace.",
        }),
      ),
      maxOutputBytes: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 200_000,
          description: `Cut each of stdout and stderr after this many bytes (Suzumio's key; at most ${maxOutputBytes}, tools.shell.maxOutputBytes).`,
        }),
      ),
    },
    { additionalProperties: false },
  );
}

/** `shell.exec`, owner-only: `/bin/sh -c` in the agent's workspace, within the `tools.shell` limits. */
export function createShellExecTool(options: BuiltinToolpackOptions) {
  const { timeoutMs: maxTimeoutMs, maxOutputBytes } = options.config.tools.shell;
  const ShellExecParameters = shellExecParameters(maxTimeoutMs, maxOutputBytes);

  const tool: Tool<typeof ShellExecParameters> = {
    name: 'shell.exec',
    risk: ['read', 'write', 'network', 'exec'],
    description: `Run a shell command in your workspace (owners only). Returns exit code, signal, stdout and stderr (each cut after ${maxOutputBytes} bytes). The command gets only PATH, HOME (the workspace) and LANG; no input; it and everything it started are killed when it ends, times out or the run stops.`,
    parameters: ShellExecParameters,
    ownerOnly: true,
    // A command can do anything the gateway's user can: asks an approver unless config says otherwise.
    risky: true,
    async execute(input, context) {
      // The registry already refuses; this keeps the tool safe when called some other way.
      const refused = context.principal
        ? roleRefusal({ allows: () => true, isOwner: false, principal: context.principal }, tool)
        : context.isOwner
          ? undefined
          : OWNER_ONLY_REFUSAL;
      if (refused !== undefined) return { ok: false, reason: refused };
      if (context.signal.aborted) {
        return { ok: false, reason: 'the run was stopped before the command started' };
      }
      const workspace = await ensureWorkspace(options, context.agentId);
      const directory = await workingDirectory(options, context.agentId, input.cwd, workspace);
      if (!directory.ok) return { ok: false, reason: directory.reason };
      const timeoutMs = Math.min(input.timeoutMs ?? maxTimeoutMs, maxTimeoutMs);
      const started = Date.now();
      const run = await runCommand({
        command: input.command,
        workspace,
        cwd: directory.host,
        timeoutMs,
        maxOutputBytes: Math.min(input.maxOutputBytes ?? maxOutputBytes, maxOutputBytes),
        signal: context.signal,
      });
      if (run.exit instanceof Error)
        return { ok: false, reason: `could not start /bin/sh: ${run.exit.message}` };
      const notes = [run.stdout.note('stdout'), run.stderr.note('stderr')].filter(
        (note) => note !== undefined,
      );
      const result = {
        exitCode: run.exit.code,
        signal: run.exit.signal,
        stdout: run.stdout.text(),
        stderr: run.stderr.text(),
        durationMs: Date.now() - started,
        ...(notes.length > 0 ? { notes } : {}),
      };
      if (run.stopped === 'timeout') {
        return { ok: false, reason: `the command ran longer than ${timeoutMs} ms and was killed`, ...result };
      }
      if (run.stopped === 'aborted')
        return { ok: false, reason: 'the run was stopped; the command was killed', ...result };
      return { ok: true, ...result };
    },
  };
  return tool;
}

/** `cwd` checked like a file tool's write path (the workspace or the agent's own artifacts), and a directory. */
async function workingDirectory(
  options: BuiltinToolpackOptions,
  agentId: string,
  cwd: string | undefined,
  workspace: string,
): Promise<{ ok: true; host: string } | { ok: false; reason: string }> {
  if (cwd === undefined) return { ok: true, host: workspace };
  const resolved = await resolveAgentPath(options, agentId, cwd, 'write');
  if (!resolved.ok) return { ok: false, reason: `cwd: ${resolved.error}` };
  const stats = await stat(resolved.value.host).catch(() => undefined);
  if (!stats?.isDirectory())
    return { ok: false, reason: `cwd: ${resolved.value.virtual} is not a directory` };
  return { ok: true, host: resolved.value.host };
}

interface CommandRun {
  command: string;
  workspace: string;
  /** Where it runs (the workspace, or `cwd` inside it); HOME stays the workspace. */
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
}

/**
 * Runs the command in its own process group (detached), so the kill reaches whatever it starts; the
 * group is killed when the shell exits too, so background jobs go with it.
 */
async function runCommand(run: CommandRun) {
  const { signal } = run;
  const child = spawn('/bin/sh', ['-c', run.command], {
    cwd: run.cwd,
    env: shellEnvironment(run.workspace),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = collect(child.stdout, run.maxOutputBytes);
  const stderr = collect(child.stderr, run.maxOutputBytes);
  let stopped: 'timeout' | 'aborted' | undefined;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const stop = (why: 'timeout' | 'aborted') => {
    stopped ??= why;
    killGroup();
  };
  const timer = setTimeout(() => stop('timeout'), run.timeoutMs);
  const onAbort = () => stop('aborted');
  signal.addEventListener('abort', onAbort, { once: true });
  // It may have been aborted while the workspace was being made.
  if (signal.aborted) onAbort();

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>(
    (resolve) => {
      child.once('error', resolve);
      child.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal }));
    },
  );
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
  if (exit instanceof Error) return { exit, stopped, stdout, stderr };
  killGroup();
  await Promise.race([
    Promise.all([stdout.closed, stderr.closed]),
    new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS)),
  ]);
  child.stdout.destroy();
  child.stderr.destroy();
  return { exit, stopped, stdout, stderr };
}

/** Keeps the first `limit` bytes of a stream and counts the rest. */
function collect(stream: Readable, limit: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (kept >= limit) return;
    const part = chunk.subarray(0, limit - kept);
    chunks.push(part);
    kept += part.length;
  });
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  return {
    closed,
    text: () => Buffer.concat(chunks).toString('utf8'),
    note: (name: string) =>
      total > kept ? `${name} cut: kept the first ${kept} of ${total} bytes` : undefined,
  };
}
