import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../base/errors/index.js';

/**
 * `<stateDir>/gateway.pid`: the pid of the `switchboard start` serving from this state dir, written
 * at each ready and removed at exit, so that `switchboard restart` finds whom to signal.
 */
export const PID_FILE = 'gateway.pid';

export function pidFileOf(stateDir: string): string {
  return path.join(path.resolve(stateDir), PID_FILE);
}

/** Written (mode 0600) at each ready; removed when the process exits. Returns the file. */
export async function writePidFile(stateDir: string): Promise<string> {
  const file = pidFileOf(stateDir);
  await writeFile(file, `${process.pid}\n`, { mode: 0o600 });
  return file;
}

/** For `process.on('exit')`: synchronous, and a file already gone is fine. */
export function removePidFileSync(file: string): void {
  rmSync(file, { force: true });
}

/**
 * The running gateway's pid from the state dir: the file must hold a pid of a live process that
 * is a switchboard gateway (its command line, where /proc shows it), else an error saying what to do.
 */
export async function readGatewayPid(stateDir: string): Promise<Result<number>> {
  const file = pidFileOf(stateDir);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const pid = Number(text?.trim());
  if (text === undefined || !Number.isInteger(pid) || pid <= 0) {
    return fail(
      `no running gateway recorded in ${file} (is it started with this config?); pass --pid <pid>, or use pm2 sendSignal SIGUSR1 switchboard`,
    );
  }
  return checkGatewayPid(pid, file);
}

/** Whether `pid` is alive and, where /proc shows command lines, a switchboard process. */
export async function checkGatewayPid(pid: number, source = 'the pid'): Promise<Result<number>> {
  try {
    process.kill(pid, 0);
  } catch {
    return fail(`no process ${pid} runs (from ${source}); the gateway is not running`);
  }
  const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (commandLine !== undefined && !/switchboard|main\.js/.test(commandLine)) {
    return fail(`process ${pid} (from ${source}) is not a switchboard gateway; nothing was sent`);
  }
  return ok(pid);
}
