import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listLogFiles } from '../../src/base/logging/index.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  isReadyLine,
  killRunningChildren,
  type LogLine,
  PROCESS_TEST_TOKEN,
  parseLogLines,
  pollUntil,
  REPO_ROOT,
  runCli,
  spawnGateway,
  spawnOnTerminal,
  writeConfig,
} from '../helpers/process.js';

// What an operator running the gateway for weeks uses: `--version`, the rotated log file
// (`log.file`) and `switchboard logs`, on the built CLI and gateway.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-logs-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/** Every file of the log's base name, oldest first, as text. */
async function logText(base: string): Promise<string> {
  const texts = await Promise.all(listLogFiles(base).map((file) => readFile(file, 'utf8').catch(() => '')));
  return texts.join('');
}

const logLines = async (base: string): Promise<LogLine[]> => parseLogLines(await logText(base));

/** `2026-05-04 09:12:03.120Z INFO  message …`: what `formatLogLine` makes of a pino line. */
const PRETTY_LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/;

describe('switchboard --version', () => {
  it('prints the version in package.json and exits 0', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      expect(await runCli([flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});

describe('log.file', () => {
  it('rotates into several files, keeps log.file.keep of them (0600), never a secret; switchboard logs reads them', async () => {
    const stateDir = path.join(dir, 'rotate-state');
    const apiKey = 'sk-rotate-secret-0123456789';
    const config = await writeConfig(
      dir,
      {
        stateDir,
        http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
        models: { default: { provider: 'openai', model: 'gpt-test', apiKey } },
        agents: { main: { model: 'default' } },
        log: { file: { size: '1k', keep: 3 } },
      },
      'rotate.jsonc',
    );
    const base = path.join(stateDir, 'logs', 'switchboard.log');
    const gateway = spawnGateway(['start', '--config', config]);
    await pollUntil('the ready line in the log file', async () => (await logLines(base)).some(isReadyLine));
    // Started after the first ready line: prints only what comes after, across the rotations.
    const follower = spawnGateway(['logs', '--config', config, '--follow', '--lines', '0']);
    await pollUntil('the follower to start', () => follower.stderr().includes('switchboard: reading'));

    let mostFiles = 0;
    for (let restart = 1; restart <= 5; restart += 1) {
      gateway.child.kill('SIGUSR1');
      await pollUntil(`ready line of restart ${restart}`, async () =>
        (await logLines(base)).some((line) => isReadyLine(line) && line.restarts === restart),
      );
      mostFiles = Math.max(mostFiles, listLogFiles(base).length);
    }
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toMatchObject({ code: 0 });

    const files = listLogFiles(base);
    expect(files.length).toBeLessThanOrEqual(3);
    // pino-roll deletes the oldest file just after a rotation: for that moment there is one more.
    expect(mostFiles).toBeLessThanOrEqual(4);
    // Rotated several times: numbering went on past the files kept.
    expect(Number(/\.(\d+)\.log$/.exec(files.at(-1) ?? '')?.[1])).toBeGreaterThanOrEqual(5);
    for (const file of files) expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(base))).mode & 0o777).toBe(0o700);
    // Flushed on stop: the last line of the current file is the last thing the gateway said.
    expect((await logLines(base)).at(-1)?.msg).toBe('stopped');
    const text = await logText(base);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(PROCESS_TEST_TOKEN);
    // The file took the lines: stdout (pm2's out log) does not get them a second time.
    expect(gateway.logLines()).toEqual([]);

    // Each ready line once, in order, readable; then the stop.
    await pollUntil('the follower to print the stop', () => follower.stdout().includes(' stopped'));
    const followed = follower.stdout().trimEnd().split('\n');
    expect(
      followed
        .filter((line) => line.includes('Switchboard ready'))
        .map((line) => /restarts=(\d)/.exec(line)?.[1]),
    ).toEqual(['1', '2', '3', '4', '5']);
    follower.child.kill('SIGINT');
    expect(await follower.exited).toMatchObject({ code: 0 });

    const tail = await runCli(['logs', '--config', config, '-n', '5']);
    expect(tail.code).toBe(0);
    expect(tail.stderr).toContain(`the log file (log.file) ${base}: ${files.at(-1)}`);
    const printed = tail.stdout.trimEnd().split('\n');
    expect(printed).toHaveLength(5);
    for (const line of printed) expect(line).toMatch(PRETTY_LINE);
    expect(printed.at(-1)).toMatch(/ INFO {2}stopped$/);
    expect(printed.join('\n')).toContain('stopping signal=SIGTERM');
    expect(followed.slice(-5)).toEqual(printed);
  });

  it('on a terminal: lines show there too, and the new token shown in its link never reaches the file', async () => {
    const stateDir = path.join(dir, 'tty-state');
    const config = await writeConfig(
      dir,
      { stateDir, http: { port: await freePort() }, log: { file: {} } },
      'tty.jsonc',
    );
    const terminal = spawnOnTerminal(['start', '--config', config]);
    try {
      await pollUntil('the ready line on the terminal', () =>
        terminal.output().includes('Switchboard ready'),
      );
      const token = (await readFile(path.join(stateDir, 'http-token'), 'utf8')).trim();
      expect(terminal.output()).toContain(`/?token=${token}`);
      const text = await logText(path.join(stateDir, 'logs', 'switchboard.log'));
      expect(text).toContain('Switchboard ready; web chat: http://127.0.0.1:');
      expect(text).toContain('/?token=[REDACTED]');
      expect(text).not.toContain(token);
    } finally {
      terminal.kill('SIGTERM');
      await terminal.closed;
    }
  });

  it('a path that cannot be written: the start and a restart are refused, naming /log/file/path', async () => {
    await writeFile(path.join(dir, 'a-file'), '');
    const bad = { file: { path: path.join(dir, 'a-file', 'switchboard.log') } };
    const port = await freePort();
    const settings = { stateDir: path.join(dir, 'bad-state'), http: { port, token: PROCESS_TEST_TOKEN } };
    const config = await writeConfig(dir, { ...settings, log: bad }, 'bad.jsonc');
    const start = await runCli(['start', '--config', config]);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(`switchboard: not starting: ${config}: cannot start with this config`);
    expect(start.stderr).toMatch(/\/log\/file\/path: the log file's directory .*a-file is not usable/);

    await writeConfig(dir, settings, 'bad.jsonc');
    const gateway = spawnGateway(['start', '--config', config]);
    await gateway.waitForReady();
    await writeConfig(dir, { ...settings, log: bad }, 'bad.jsonc');
    gateway.child.kill('SIGUSR1');
    await pollUntil('the refused restart', () =>
      gateway.logLines().find((line) => line.msg?.startsWith('Restart refused: /log/file/path')),
    );
    expect(gateway.child.exitCode).toBeNull();
  });
});
