import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_FILE_VARIABLE, missingVariableHint, readEnvironment } from '../../src/base/config/index.js';
import { ConfigError } from '../../src/base/errors/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-env-file-unit-');
});

afterAll(async () => {
  await removeDir(dir);
});

describe('readEnvironment', () => {
  it("puts the file's variables under the process's and names the file it read", async () => {
    const file = path.join(dir, 'a.env');
    await writeFile(file, '# comment\nA=from-file\nB="quoted value"\nexport C=c\n');
    const environment = readEnvironment({ envFile: file, environment: { A: 'from-process', PATH: '/bin' } });
    expect(environment).toMatchObject({ A: 'from-process', B: 'quoted value', PATH: '/bin' });
    expect(environment[ENV_FILE_VARIABLE]).toBe(file);
  });

  it('reads data/.env under the working directory by default, and an absent one is no variables', async () => {
    const cwd = path.join(dir, 'workdir');
    const absent = readEnvironment({ cwd, environment: {} });
    expect(absent).toEqual({ [ENV_FILE_VARIABLE]: path.join(cwd, 'data', '.env') });
    // Named by the environment (pm2's ecosystem file) and absent: no variables either.
    const named = readEnvironment({ cwd, environment: { [ENV_FILE_VARIABLE]: 'secrets.env' } });
    expect(named).toEqual({ [ENV_FILE_VARIABLE]: path.join(cwd, 'secrets.env') });
  });

  it('refuses an --env-file that does not exist, naming it', () => {
    const file = path.join(dir, 'missing.env');
    expect(() => readEnvironment({ envFile: file, environment: {} })).toThrow(ConfigError);
    expect(() => readEnvironment({ envFile: file, environment: {} })).toThrow(`${file}: invalid config`);
  });

  it('the hint names the file, the line to add and the restart', () => {
    const hint = missingVariableHint(['SLACK_BOT_TOKEN'], { [ENV_FILE_VARIABLE]: '/srv/sb/data/.env' });
    expect(hint).toContain('from the env file /srv/sb/data/.env');
    expect(hint).toContain('Add SLACK_BOT_TOKEN=... to that file');
    expect(hint).toContain('a running gateway reads the file at each restart');
    expect(missingVariableHint(['X'], {})).toContain('data/.env under the working directory');
  });
});
