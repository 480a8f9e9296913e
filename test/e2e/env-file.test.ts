import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  killRunningChildren,
  runCli,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// Issue 33 item 2: secrets from an env file. The built CLI in a workdir of its own, as an operator
// runs it: `data/.env` (or `--env-file`) is read before `${NAME}` references resolve, by `start`
// at the start and at each in-process restart, and by `doctor` and `config patch`.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-env-file-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

const TOKEN_A = 'env-file-token-aaaaaaaaaaaaaaaa';
const TOKEN_B = 'env-file-token-bbbbbbbbbbbbbbbb';

/** A workdir whose config takes its HTTP token from `${SB_TEST_HTTP_TOKEN}`. */
async function workdir(name: string): Promise<{ root: string; port: number; config: string }> {
  const root = path.join(dir, name);
  await mkdir(path.join(root, 'config'), { recursive: true });
  const port = await freePort();
  const config = await writeConfig(path.join(root, 'config'), {
    http: { port, token: '${SB_TEST_HTTP_TOKEN}' },
  });
  return { root, port, config };
}

async function writeEnvFile(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
}

describe('the env file', () => {
  it('a missing variable names the env file it is read from and how to set it', async () => {
    const { root } = await workdir('missing');
    for (const command of ['start', 'doctor']) {
      const result = await runCli([command], { cwd: root, env: childEnvironment() });
      expect(result.code, command).toBe(1);
      expect(result.stderr).toContain('/http/token: environment variable SB_TEST_HTTP_TOKEN is not set');
      expect(result.stderr).toContain(`from the env file ${path.join(root, 'data', '.env')}`);
      expect(result.stderr).toContain('Add SB_TEST_HTTP_TOKEN=... to that file');
      expect(result.stderr).toMatch(/a running gateway reads the file at each restart/);
    }
  });

  it('start reads data/.env, and reads it again at an in-process restart', async () => {
    const { root, port } = await workdir('start');
    const envFile = path.join(root, 'data', '.env');
    await writeEnvFile(envFile, `# the gateway's secrets\nSB_TEST_HTTP_TOKEN=${TOKEN_A}\n`);
    const gateway = spawnGateway(['start'], { cwd: root, env: childEnvironment() });
    const url = await gateway.waitForReady();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const whoami = (token: string) =>
      fetch(`${url}/api/status`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await whoami(TOKEN_A)).toBe(200);
    // The token never reaches the log.
    expect(gateway.stdout()).not.toContain(TOKEN_A);

    await writeEnvFile(envFile, `SB_TEST_HTTP_TOKEN="${TOKEN_B}"\n`);
    gateway.child.kill('SIGUSR1');
    await gateway.waitForReady(2);
    expect(await whoami(TOKEN_B)).toBe(200);
    expect(await whoami(TOKEN_A)).toBe(401);
    expect(gateway.child.pid).toBe(gateway.pid);
  });

  it('--env-file or SWITCHBOARD_ENV_FILE names another file; --env-file must exist', async () => {
    const { root } = await workdir('flag');
    const other = path.join(root, 'secrets.env');
    await writeEnvFile(other, `SB_TEST_HTTP_TOKEN=${TOKEN_A}\n`);
    const doctor = await runCli(['doctor', '--env-file', other], { cwd: root, env: childEnvironment() });
    expect(doctor.stderr).not.toContain('is not set');
    expect(doctor.stdout).toContain('OK');

    const absent = await runCli(['doctor', '--env-file', path.join(root, 'nope.env')], {
      cwd: root,
      env: childEnvironment(),
    });
    // Node 20 itself looks for a file named by --env-file, even after the script, and exits 9
    // ("node: <file>: not found") before the CLI runs; later Node versions leave it to the CLI.
    expect(absent.code).not.toBe(0);
    expect(absent.stderr).toMatch(/nope\.env:( invalid config\n {2}\/: file)? not found/);

    // SWITCHBOARD_ENV_FILE names the file too (pm2's ecosystem file sets it).
    const named = await runCli(['doctor'], {
      cwd: root,
      env: childEnvironment({ SWITCHBOARD_ENV_FILE: other }),
    });
    expect(named.stdout).toContain('OK');
  });

  it('config patch validates a ${NAME} reference against the env file', async () => {
    const { root } = await workdir('patch');
    await writeEnvFile(
      path.join(root, 'data', '.env'),
      `SB_TEST_HTTP_TOKEN=${TOKEN_A}\nSB_TEST_KEY=sk-test\n`,
    );
    const patch = JSON.stringify({
      models: { default: { provider: 'openai', model: 'm', apiKey: '${SB_TEST_KEY}' } },
    });
    const result = await runCli(['config', 'patch', patch], { cwd: root, env: childEnvironment() });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('changed: models');
    const refused = await runCli(
      [
        'config',
        'patch',
        JSON.stringify({ models: { other: { provider: 'openai', model: 'm', apiKey: '${SB_TEST_UNSET}' } } }),
      ],
      { cwd: root, env: childEnvironment() },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('environment variable SB_TEST_UNSET is not set');
    expect(refused.stderr).toContain(path.join(root, 'data', '.env'));
  });
});
