import { execFile } from 'node:child_process';
import { fail, ok, type Result } from '../base/errors/index.js';

/** What a command printed, or why it failed: the command, its exit and the end of its output. */
export interface CommandRun {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv | undefined;
  timeoutMs?: number | undefined;
}

/** How much of a failed command's output a reason keeps (the end, where errors are). */
const TAIL = 1500;

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > TAIL ? `…${trimmed.slice(-TAIL)}` : trimmed;
}

/**
 * Runs `file args` and resolves to its stdout, or to an error naming the command, the directory,
 * the exit and the end of its output. Never rejects. A timeout kills the command.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  run: Omit<CommandRun, 'command'>,
): Promise<Result<string>> {
  const command = [file, ...args].join(' ');
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      {
        cwd: run.cwd,
        env: run.env ?? process.env,
        timeout: run.timeoutMs ?? 600_000,
        maxBuffer: 64 * 1024 * 1024,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(ok(stdout));
        const exit = error.killed
          ? 'was killed (time limit)'
          : `exited with ${String(error.code ?? error.signal)}`;
        const output = tail(`${stdout}\n${stderr}`);
        resolve(fail(`\`${command}\` in ${run.cwd} ${exit}${output ? `: ${output}` : ''}`));
      },
    );
  });
}

/** `git args` in `cwd`; the output trimmed. */
export async function git(cwd: string, ...args: string[]): Promise<Result<string>> {
  const result = await runCommand('git', args, { cwd, timeoutMs: 120_000 });
  return result.ok ? ok(result.value.trim()) : result;
}
