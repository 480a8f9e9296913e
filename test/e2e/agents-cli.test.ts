import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { runCli } from '../helpers/process.js';

// `switchboard agents` and the risk lines of `switchboard doctor`, as an operator runs them: the
// built CLI on a real config with a local toolpack whose manifest declares `risk`.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-agents-cli-');
  const pack = path.join(dir, 'deploy-pack');
  await mkdir(pack);
  const manifest = {
    id: 'deploy',
    tools: [
      {
        name: 'deploy.run',
        description: 'Deploys.',
        inputSchema: { type: 'object' },
        risk: ['network', 'exec'],
      },
    ],
  };
  await writeFile(path.join(pack, 'suzumio.toolpack.json'), JSON.stringify(manifest));
  await writeFile(path.join(pack, 'controller.mjs'), 'export default () => ({});\n');
  await writeFile(path.join(pack, 'runner.mjs'), 'export default () => ({});\n');
});

afterAll(async () => {
  await removeDir(dir);
});

async function writeConfig(name: string, config: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, `${name}.jsonc`);
  await writeFile(file, JSON.stringify({ stateDir: path.join(dir, `${name}-state`), ...config }));
  return file;
}

const CONFIG = {
  models: { fast: { provider: 'openai', model: 'gpt-x', apiKey: 'sk-agents-cli', fallbacks: ['slow'] } },
  agents: {
    ops: { model: 'fast', tools: ['shell.*', 'deploy.*', 'file.read'] },
    reader: { model: 'fast', tools: ['file.read', 'web.fetch'] },
  },
  defaultAgent: 'ops',
  tools: { toolpacks: ['core', 'shell', 'web', { path: './deploy-pack', id: 'deploy' }] },
};

describe('switchboard agents', () => {
  it('lists each agent, its model chain and its risk summary, toolpack manifests and tools.risk included', async () => {
    const file = await writeConfig('agents', {
      ...CONFIG,
      models: { ...CONFIG.models, slow: { provider: 'openai', model: 'gpt-y', apiKey: 'sk-agents-cli' } },
      tools: { ...CONFIG.tools, risk: { 'web.*': ['network', 'messaging'] } },
    });
    const result = await runCli(['agents', '--config', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'ops: fast → slow',
        '  risk: read, write (owner only), network, exec',
        'reader: fast → slow',
        '  risk: read, network, messaging',
        '',
      ].join('\n'),
    );
  });

  it('names the hidden tools and why; a broken config exits 1 naming the problem', async () => {
    const file = await writeConfig('no-chat', {
      ...CONFIG,
      models: { ...CONFIG.models, slow: { provider: 'openai', model: 'gpt-y', apiKey: 'sk-agents-cli' } },
      agents: { ops: { model: 'fast', tools: ['chat.attach', 'file.read'] } },
      channels: { webchat: { enabled: false } },
    });
    const hidden = await runCli(['agents', '--config', file]);
    expect(hidden.stdout).toContain('  risk: read\n');
    expect(hidden.stdout).toContain('  unavailable: chat.attach (needs a chat channel that takes files');
    const broken = await writeConfig('broken', { tools: { risk: { 'x.*': ['root'] } } });
    const refused = await runCli(['agents', '--config', broken]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('/tools/risk/x.*/0');
  });

  it('doctor prints the same risk summary per agent', async () => {
    const file = await writeConfig('doctor', {
      ...CONFIG,
      models: { ...CONFIG.models, slow: { provider: 'openai', model: 'gpt-y', apiKey: 'sk-agents-cli' } },
    });
    const result = await runCli(['doctor', '--config', file], { timeoutMs: 40_000 });
    expect(result.stdout).toContain('ops: fast → slow\n  risk: read, write (owner only), network, exec\n');
    expect(result.stdout).toContain('reader: fast → slow\n  risk: read, network\n');
  });
});
