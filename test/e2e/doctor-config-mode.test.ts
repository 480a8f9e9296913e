import { chmod, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { childEnvironment, runCli, writeConfig } from '../helpers/process.js';

// `switchboard doctor` (the built CLI) on the config file's own mode: one that holds a secret
// written out and that group or others may read is a warning naming the file and the fix; doctor
// changes nothing (a start tightens it), and prints no secret.

const TOKEN = 'doctor-mode-token-0123456789';
let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-doctor-config-mode-');
});

afterAll(async () => {
  await removeDir(dir);
});

async function doctorOn(name: string, mode: number, http: Record<string, unknown>) {
  const file = await writeConfig(dir, { stateDir: path.join(dir, `${name}-state`), http }, `${name}.jsonc`);
  await chmod(file, mode);
  const result = await runCli(['doctor', '--config', file], {
    timeoutMs: 40_000,
    env: { ...childEnvironment(), DOCTOR_MODE_TOKEN: TOKEN },
  });
  return { file, ...result, output: result.stdout + result.stderr };
}

describe('doctor and the config file mode', () => {
  it('warns about a world-readable config file holding a secret, naming it and chmod 600, and leaves it', async () => {
    const { file, stderr, output } = await doctorOn('loose', 0o644, { port: 0, token: TOKEN });
    expect(stderr).toContain(
      `warning: config: ${file} holds secrets and is readable by group or others (mode 0644): run chmod 600 ${file}`,
    );
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(output).not.toContain(TOKEN);
  });

  it('says nothing of a 0600 file, nor of one whose secrets are ${ENV} references', async () => {
    const tight = await doctorOn('tight', 0o600, { port: 0, token: TOKEN });
    expect(tight.output).not.toContain('readable by group or others');
    const referenced = await doctorOn('referenced', 0o644, { port: 0, token: '${DOCTOR_MODE_TOKEN}' });
    expect(referenced.output).not.toContain('readable by group or others');
  });
});
