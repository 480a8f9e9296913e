import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  countMessages,
  isReadyLine,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  REPO_ROOT,
  request,
  runCli,
  sendMessage,
  spawnGateway,
  WEBCHAT_SESSION_KEY,
  writeConfig,
} from '../helpers/process.js';

// The built gateway (`node dist/main.js`) as a real process: signals, exit codes, stderr and
// state on disk are what an operator sees, and in-process tests cannot observe them.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-process-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/** A valid config in its own state dir, on a port the test picked (so it is known before ready). */
async function goodConfig(name: string): Promise<string> {
  const port = await freePort();
  return writeConfig(
    dir,
    { stateDir: path.join(dir, `${name}-state`), http: { port, token: PROCESS_TEST_TOKEN } },
    `${name}.jsonc`,
  );
}

async function whoami(url: string): Promise<string> {
  const response = await sendMessage(url, '/whoami');
  expect(response.status).toBe(200);
  return String(response.body.replies[0]?.text);
}

describe('SIGUSR1', () => {
  it('restarts in-process: same pid, a new ready line, still answering', async () => {
    const gateway = spawnGateway(['start', '--config', await goodConfig('restart')]);
    const url = await gateway.waitForReady();
    expect(await whoami(url)).toContain('webchat:local');

    gateway.child.kill('SIGUSR1');
    const urlAfter = await gateway.waitForReady(2);
    expect(urlAfter).toBe(url);
    const lines = gateway.logLines();
    expect(lines.filter(isReadyLine).at(-1)).toMatchObject({ pid: gateway.pid, restarts: 1 });
    expect(countMessages(lines, 'restarting')).toBe(1);
    expect(await whoami(urlAfter)).toContain('webchat:local');
    expect(gateway.child.exitCode).toBeNull();
    // Node reserves SIGUSR1 for its inspector; our handler must replace that, not open a debug port.
    expect(gateway.stderr()).not.toContain('Debugger listening');
  });

  it('survives several signals close together', async () => {
    const gateway = spawnGateway(['start', '--config', await goodConfig('burst')]);
    const url = await gateway.waitForReady();

    for (let index = 0; index < 3; index += 1) gateway.child.kill('SIGUSR1');
    // The kernel may merge pending signals and the host joins queued restarts, so the number of
    // restarts is 1 to 3; the gateway is settled when every restart has reached its ready line.
    await pollUntil('every restart to finish', () => {
      const lines = gateway.logLines();
      const ready = lines.filter(isReadyLine).length;
      return ready > 1 && ready === countMessages(lines, 'restarting') + 1;
    });
    // Polled, because a signal read late could still start one more restart.
    const answer = await pollUntil('an answer after the restarts', async () => {
      const response = await sendMessage(url, '/whoami');
      return response.status === 200 && response.body;
    });
    expect(answer.replies[0]?.text).toContain('webchat:local');
    const lines = gateway.logLines();
    expect(countMessages(lines, 'restarting')).toBeGreaterThanOrEqual(1);
    expect(countMessages(lines, 'restarting')).toBeLessThanOrEqual(3);
    expect(lines.some((line) => line.msg?.startsWith('restart failed'))).toBe(false);
    expect(new Set(lines.map((line) => line.pid))).toEqual(new Set([gateway.pid]));
    expect(gateway.child.exitCode).toBeNull();
  });
});

describe('stop and start', () => {
  it('keeps the transcript across a SIGTERM and a new process on the same state dir', async () => {
    const configPath = await goodConfig('durable');
    const first = spawnGateway(['start', '--config', configPath]);
    const url = await first.waitForReady();
    const reply = await sendMessage(url, 'remember me');
    expect(reply.status).toBe(200);
    expect(reply.body.replies[0]?.text).toContain('No model is configured');

    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.logLines().map((line) => line.msg)).toEqual(expect.arrayContaining(['stopping', 'stopped']));

    const second = spawnGateway(['start', '--config', configPath]);
    const urlAgain = await second.waitForReady();
    const transcript = await request<{ entries: unknown[] }>(
      urlAgain,
      'GET',
      `/api/sessions/${encodeURIComponent(WEBCHAT_SESSION_KEY)}/transcript`,
    );
    expect(transcript.status).toBe(200);
    expect(transcript.body.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: 'user', text: 'remember me' })]),
    );
  });
});

describe('config errors', () => {
  // Not valid: a string port and a key the schema does not know.
  const invalidConfig = { http: { port: 'eighty' }, colour: 'blue' };

  it('start refuses an invalid config and names each JSON path', async () => {
    const configPath = await writeConfig(dir, invalidConfig, 'invalid-start.jsonc');
    const result = await runCli(['start', '--config', configPath]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(configPath);
    expect(result.stderr).toContain('/http/port');
    expect(result.stderr).toContain('/colour: unknown key');
  });

  it('doctor exits 1 on an invalid config, naming the path', async () => {
    const configPath = await writeConfig(dir, invalidConfig, 'invalid-doctor.jsonc');
    const result = await runCli(['doctor', '--config', configPath]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/http/port');
    expect(result.stdout).not.toContain('OK');
  });

  it('doctor names an agent prompt file that cannot be read', async () => {
    const configPath = await writeConfig(
      dir,
      { agents: { main: { systemPromptFile: 'prompts/missing.md' } } },
      'missing-prompt.jsonc',
    );
    const result = await runCli(['doctor', '--config', configPath]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/agents/main/systemPromptFile: cannot read');
    expect(result.stderr).toContain('prompts/missing.md: ENOENT');
  });

  it('doctor reports a toolpack it would skip and exits 1', async () => {
    const broken = path.join(REPO_ROOT, 'test/fixtures/bad-toolpacks/controller-missing');
    const configPath = await writeConfig(
      dir,
      { tools: { toolpacks: ['web', { path: broken, id: 'controller-missing' }] } },
      'broken-toolpack.jsonc',
    );
    const result = await runCli(['doctor', '--config', configPath]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('toolpacks: web');
    expect(result.stderr).toContain('toolpacks skipped (the gateway starts without them):');
    expect(result.stderr).toContain('[controller-missing]');
  });

  it('doctor exits 0 and prints OK on a good config', async () => {
    const result = await runCli(['doctor', '--config', await goodConfig('doctor')]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trim().split('\n').at(-1)).toBe('OK');
  });

  it('a missing environment variable names the variable and where it is used', async () => {
    const configPath = await writeConfig(
      dir,
      { http: { token: '${SWITCHBOARD_TEST_UNSET_TOKEN}' } },
      'missing-variable.jsonc',
    );
    // childEnvironment drops SWITCHBOARD_* variables, so this one is certainly unset.
    const environment = childEnvironment();
    for (const command of ['start', 'doctor']) {
      const result = await runCli([command, '--config', configPath], { env: environment });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        '/http/token: environment variable SWITCHBOARD_TEST_UNSET_TOKEN is not set',
      );
    }
  });
});
