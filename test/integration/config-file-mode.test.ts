import { chmod, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestGateway, TEST_TOKEN } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

// A config file that holds a secret written out (here the HTTP token) and that group or others may
// read is made 0600 by the start, which logs it naming the file; one whose secrets are all
// `${ENV}` references holds nothing to hide and keeps its mode.

const cleanups = cleanupAfterEach();

/** A temp dir whose gateway.jsonc already exists with `mode` (the helper's write keeps it). */
async function dirWithConfigFile(mode: number): Promise<string> {
  const dir = await makeTempDir('switchboard-config-mode-');
  const file = path.join(dir, 'gateway.jsonc');
  await writeFile(file, '{}\n');
  await chmod(file, mode);
  return dir;
}

const warnings = (lines: readonly string[]) =>
  lines
    .map((line) => JSON.parse(line) as { level: number; msg: string; file?: string })
    .filter((line) => line.level === 40);

describe('the config file mode at start', () => {
  it('makes a world-readable config file holding a secret 0600 and logs it naming the file', async () => {
    const dir = await dirWithConfigFile(0o644);
    const gateway = await startTestGateway({ dir });
    cleanups.push(() => gateway.dispose());
    expect((await stat(gateway.configPath)).mode & 0o777).toBe(0o600);
    const warned = warnings(gateway.logLines).filter((line) => line.file === gateway.configPath);
    expect(warned.map((line) => line.msg)).toEqual([
      `the config file ${gateway.configPath} holds secrets and was readable by group or others (mode 0644): made 0600`,
    ]);
    expect(gateway.logLines.join('')).not.toContain(TEST_TOKEN);
  });

  it('leaves a config file whose secrets are ${ENV} references as it is, and says nothing', async () => {
    const dir = await dirWithConfigFile(0o640);
    const gateway = await startTestGateway({
      dir,
      config: { http: { port: 0, token: '${TEST_HTTP_TOKEN}' } },
      environment: { TEST_HTTP_TOKEN: TEST_TOKEN },
    });
    cleanups.push(() => gateway.dispose());
    expect((await stat(gateway.configPath)).mode & 0o777).toBe(0o640);
    expect(warnings(gateway.logLines).filter((line) => line.file === gateway.configPath)).toEqual([]);
  });
});
