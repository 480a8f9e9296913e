import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/app/index.js';
import { hashConfigText, loadConfig, validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { loadConfiguredToolpacks } from '../../src/extensions/toolpacks/index.js';
import { checkStartable } from '../../src/host/index.js';
import { TEST_TOKEN } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { REPO_ROOT } from '../helpers/process.js';

/**
 * A gateway on built-in defaults (no config file) loads the core toolpack and the packaged
 * scheduler and plan toolpacks from the package's `toolpacks/`. Built with `createGateway`
 * directly, so that the port can be 0 (the defaults' 8787 could be taken on a test machine).
 */

let gateway: Gateway | undefined;
let dir: string | undefined;
afterEach(async () => {
  await gateway?.stop();
  if (dir) await removeDir(dir);
  gateway = undefined;
  dir = undefined;
});

describe('the example config', () => {
  it('registers the packaged toolpacks by path, and they pass validation', async () => {
    const example = path.join(REPO_ROOT, 'config/gateway.example.jsonc');
    const loaded = await loadConfig({ configPath: example, environment: {} });
    const report = await loadConfiguredToolpacks(loaded.config, loaded.path);
    expect(report.problems).toEqual([]);
    expect(report.builtins).toEqual(['core']);
    expect(report.toolpacks.map((toolpack) => toolpack.id)).toEqual(['scheduler', 'plan']);
  });
});

describe('built-in defaults', () => {
  it('load the packaged toolpacks', async () => {
    dir = await makeTempDir('switchboard-defaults-');
    const checked = validateConfig({
      stateDir: path.join(dir, 'data'),
      http: { port: 0, token: TEST_TOKEN },
    });
    if (!checked.ok) throw new Error(JSON.stringify(checked.error));
    gateway = createGateway({
      loaded: {
        path: undefined,
        origin: 'defaults',
        hash: hashConfigText(''),
        text: '',
        config: checked.value,
      },
      log: createLogger({ level: 'silent', destination: { write: () => undefined } }),
      startedAt: Date.now(),
      environment: {},
      token: { token: TEST_TOKEN, source: 'config' },
      startCheck: async (next, file, check) => (await checkStartable(next, file, check)).issues,
      scheduleRestart: () => {
        throw new Error('not used');
      },
    });
    const { url } = await gateway.start();
    const response = await fetch(`${url}/api/toolpacks`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    const report = (await response.json()) as any;
    expect(report.builtins).toEqual(['core']);
    expect(report.problems).toEqual([]);
    expect(report.toolpacks.map((toolpack: any) => [toolpack.id, toolpack.directory])).toEqual([
      ['scheduler', path.join(REPO_ROOT, 'toolpacks/scheduler')],
      ['plan', path.join(REPO_ROOT, 'toolpacks/plan')],
    ]);
    expect(report.toolpacks[0].tools).toEqual([
      'schedule.once',
      'schedule.recurring',
      'schedule.list',
      'schedule.cancel',
    ]);
  });
});
