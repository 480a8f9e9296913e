import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  killRunningChildren,
  pollUntil,
  runCli,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

/**
 * Issue 33 item 8: the CLI beside a gateway started in a terminal (no pm2, no `log.file`), as a
 * newcomer runs it. What the CLI prints names what it can know (the pid file, the token file,
 * the running gateway's /api/logs) instead of a `<placeholder>` or "has the gateway started?".
 */

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-beside-');
});
afterEach(async () => {
  await killRunningChildren();
});
afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

describe('the CLI beside a gateway running in a terminal', { timeout: 120_000 }, () => {
  it('config patch names its pid, doctor the token file, logs reads its recent lines', async () => {
    const stateDir = path.join(dir, 'state');
    // No http.token: the first start generates one into <stateDir>/http-token.
    const config = await writeConfig(dir, { stateDir, http: { port: await freePort() } });
    // The working directory has no data/logs: no pm2 log to fall back on.
    const run = (args: string[]) =>
      runCli([...args, '--config', config], { cwd: dir, env: childEnvironment() });
    const gateway = spawnGateway(['start', '--config', config], { cwd: dir });
    await gateway.waitForReady();
    const pidFile = path.join(stateDir, 'gateway.pid');
    await pollUntil(
      'the pid file',
      async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== '',
    );

    const patch = await run(['config', 'patch', '{"log":{"level":"debug"}}']);
    expect(patch.code).toBe(0);
    expect(patch.stdout).toContain(`The running gateway (pid ${gateway.pid}) picks this up on restart`);
    expect(patch.stdout).toContain(`kill -USR1 ${gateway.pid}`);
    expect(patch.stdout).not.toMatch(/<\w+>/);

    const doctor = await run(['doctor']);
    expect(doctor.stdout).toContain(`token from ${path.join(stateDir, 'http-token')}`);
    expect(doctor.stdout).not.toMatch(/<\w+>/);

    const logs = await run(['logs', '-n', '50']);
    expect(logs.stderr).not.toContain('has the gateway started?');
    expect(logs.stderr).toContain(`the running gateway (pid ${gateway.pid}) logs to the terminal it runs in`);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z INFO {2}Switchboard ready/m);

    gateway.child.kill('SIGTERM');
    await gateway.exited;
    const after = await run(['config', 'patch', '{"log":{"level":"info"}}']);
    expect(after.stdout).toContain(`No gateway runs from ${stateDir} now`);
    const none = await run(['logs']);
    expect(none.code).toBe(1);
    expect(none.stderr).not.toContain('has the gateway started?');
    expect(none.stderr).toContain(`no gateway runs from ${stateDir}`);
  });
});
