import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  REPO_ROOT,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// Start-up pays only for what is configured: the built gateway (`node dist/main.js start`) is run
// with a loader hook (test/fixtures/import-recorder) that writes down every module the process
// resolves; once it is ready, the list must name no SDK of a channel or provider the config does
// not use (nor the MCP SDK and zod without an MCP server). The model and MCP cases are the control:
// a configured provider's SDK does show up in the list.

const RECORDER = path.join(REPO_ROOT, 'test', 'fixtures', 'import-recorder', 'register.mjs');
const SDKS = [
  'discord.js',
  '@slack/bolt',
  '@anthropic-ai/sdk',
  'openai',
  '@keyv/redis',
  '@modelcontextprotocol/sdk',
  'zod',
] as const;

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-start-imports-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await removeDir(dir);
});

/**
 * Starts the gateway on `config` (plus a state dir, port and token), waits for ready (and for
 * `also` to be loaded: what starts in the background, as MCP servers do), stops it; the SDKs it loaded.
 */
async function sdksLoadedAtStart(
  name: string,
  config: Record<string, unknown>,
  also?: (typeof SDKS)[number],
): Promise<string[]> {
  const port = await freePort();
  const file = await writeConfig(
    dir,
    { stateDir: path.join(dir, `${name}-state`), http: { port, token: PROCESS_TEST_TOKEN }, ...config },
    `${name}.jsonc`,
  );
  const imports = path.join(dir, `${name}-imports.txt`);
  const gateway = spawnGateway(['start', '--config', file], {
    env: childEnvironment({ NODE_OPTIONS: `--import ${RECORDER}`, SWITCHBOARD_TEST_IMPORTS: imports }),
  });
  await gateway.waitForReady();
  if (also)
    await pollUntil(`${also} to be imported`, async () =>
      (await readFile(imports, 'utf8')).includes(`/node_modules/${also}/`),
    );
  gateway.child.kill('SIGTERM');
  expect((await gateway.exited).code).toBe(0);
  const urls = (await readFile(imports, 'utf8')).split('\n');
  // Sanity: the recorder saw the gateway's own modules (an empty list would pass every case).
  expect(urls.some((url) => url.endsWith('/dist/app/index.js'))).toBe(true);
  return SDKS.filter((sdk) => urls.some((url) => url.includes(`/node_modules/${sdk}/`)));
}

const model = (provider: string) => ({
  models: { main: { provider, model: 'test-model', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'test-key' } },
  agents: { main: { model: 'main' } },
});

describe('start-up imports', () => {
  it('loads no channel or provider SDK when the config names none (the web chat alone)', async () => {
    expect(await sdksLoadedAtStart('empty', {})).toEqual([]);
  });

  it('loads the OpenAI SDK for an openai model, and nothing else', async () => {
    expect(await sdksLoadedAtStart('openai', model('openai'))).toEqual(['openai']);
  });

  it('loads the Anthropic SDK for an anthropic model, and nothing else', async () => {
    expect(await sdksLoadedAtStart('anthropic', model('anthropic'))).toEqual(['@anthropic-ai/sdk']);
  });

  it('loads the MCP SDK (and zod) for an MCP server, when its first attempt begins', async () => {
    const mcp = {
      servers: { absent: { command: process.execPath, args: [path.join(dir, 'no-such-server.js')] } },
    };
    expect(await sdksLoadedAtStart('mcp', { mcp }, '@modelcontextprotocol/sdk')).toEqual([
      '@modelcontextprotocol/sdk',
      'zod',
    ]);
  });
});
