import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { childEnvironment, killRunningChildren, runCli, writeConfig } from '../helpers/process.js';

// `switchboard doctor` says whether toolpack runners get a sandbox on this machine. A PATH without
// bwrap stands in for a machine that has none.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-doctor-sandbox-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await removeDir(dir);
});

async function doctor(name: string, runnerSandbox: string, environment: Record<string, string> = {}) {
  const file = await writeConfig(
    dir,
    {
      stateDir: path.join(dir, `${name}-state`),
      http: { port: 8787, token: 'doctor-sandbox-token-0123456789' },
      tools: { runnerSandbox },
    },
    `${name}.jsonc`,
  );
  return runCli(['doctor', '--config', file], { env: childEnvironment(environment), timeoutMs: 30_000 });
}

describe('switchboard doctor: the runner sandbox', () => {
  it('names the sandbox the runners get', async () => {
    const result = await doctor('found', 'auto');
    expect(result.stdout).toContain(
      'runner sandbox: bubblewrap (no network, no host files or sockets, cannot signal the gateway)\n',
    );
    expect(result.code).toBe(0);
  });

  it('warns, and still passes, where the machine has none and the setting is auto', async () => {
    const result = await doctor('missing-auto', 'auto', { PATH: path.join(dir, 'empty-bin') });
    expect(result.stderr).toContain(
      'warning: runner sandbox: none (bwrap is not installed); toolpack runners start without a sandbox',
    );
    expect(result.stderr).toContain('apt-get install bubblewrap');
    expect(result.code).toBe(0);
  });

  it('fails where the machine has none and the setting is required', async () => {
    const result = await doctor('missing-required', 'required', { PATH: path.join(dir, 'empty-bin') });
    expect(result.stderr).toContain('tools.runnerSandbox is "required", so toolpack runners will not start');
    expect(result.code).toBe(1);
  });
});
