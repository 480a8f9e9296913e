import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFIG_RISK_CLASSES,
  type Config,
  findToolProtectedPaths,
  validateConfig,
} from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { communicationPolicy } from '../../src/base/messages/index.js';
import { resolvePolicy } from '../../src/engine/approvals/index.js';
import {
  asksByDefault,
  createToolRegistry,
  GATEWAY_TOOLS,
  type GatedCall,
  RISK_CLASSES,
  riskSummary,
  riskSummaryText,
  type Tool,
  unmetRequirement,
  withRiskOverride,
} from '../../src/engine/tools/index.js';
import {
  BUILTIN_TOOLPACK_TOOLS,
  createBuiltinToolpackTools,
  createCompletionRecords,
  createCoreTools,
  loadToolpackManifest,
  MANIFEST_FILE,
  toolpackRisk,
} from '../../src/extensions/toolpacks/index.js';
import { createStore } from '../../src/records/store/index.js';
import { testToolContext } from '../helpers/tool-context.js';

/** Risk classes (issue 21): declared by every built-in, by manifests, overridden by config; summaries; approval defaults; `requires`. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

function configOf(value: Record<string, unknown> = {}): Config {
  const result = validateConfig({ agents: { main: {} }, ...value });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

function plainTool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, description: name, parameters: Type.Object({}), execute: () => ({ ok: true }), ...extra };
}

/** Every tool the gateway itself ships: the built-ins and each built-in toolpack's. */
async function shippedTools(): Promise<Tool[]> {
  const config = configOf();
  const options = { config, configPath: 'gateway.jsonc', stateDir: '.' };
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const core = createCoreTools({
    ...options,
    send: async () => ({ ok: true }),
    routes: {},
    policy: communicationPolicy(config),
    completions: createCompletionRecords({ store }),
  });
  const packs = (['file', 'shell', 'web'] as const).flatMap((name) =>
    createBuiltinToolpackTools(name, options),
  );
  return [...GATEWAY_TOOLS, ...core, ...packs];
}

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'switchboard-risk-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('risk classes of the shipped tools', () => {
  it('every built-in tool and every built-in toolpack tool declares known classes', async () => {
    const tools = await shippedTools();
    const names = new Set(tools.map((tool) => tool.name));
    for (const pack of Object.values(BUILTIN_TOOLPACK_TOOLS))
      for (const name of pack) expect(names).toContain(name);
    for (const tool of tools) {
      expect(tool.risk?.length, `${tool.name} declares no risk`).toBeGreaterThan(0);
      for (const risk of tool.risk ?? []) expect(RISK_CLASSES, tool.name).toContain(risk);
    }
  });

  it('says what the issue asks of the obvious ones', async () => {
    const risk = Object.fromEntries((await shippedTools()).map((tool) => [tool.name, tool.risk]));
    expect(risk['shell.exec']).toContain('exec');
    expect(risk.gateway).toContain('control-plane');
    expect(risk['messages.send']).toContain('messaging');
    expect(risk['chat.attach']).toContain('messaging');
    expect(risk['file.write']).toContain('write');
    expect(risk['web.fetch']).toContain('network');
    expect(risk['file.read']).toEqual(['read']);
  });

  it('config keeps the same six classes as src/engine/tools (config sits below tools)', () => {
    expect([...CONFIG_RISK_CLASSES]).toEqual([...RISK_CLASSES]);
  });
});

describe('toolpack manifests', () => {
  async function manifestWith(id: string, tool: Record<string, unknown>) {
    const directory = path.join(workspace, id);
    await mkdir(directory, { recursive: true });
    const manifest = { id, tools: [{ description: 'A tool.', inputSchema: { type: 'object' }, ...tool }] };
    await writeFile(path.join(directory, MANIFEST_FILE), JSON.stringify(manifest));
    await writeFile(path.join(directory, 'controller.mjs'), 'export default () => ({});\n');
    await writeFile(path.join(directory, 'runner.mjs'), 'export default () => ({});\n');
    return loadToolpackManifest({ directory: id, configPath: path.join(workspace, 'gateway.jsonc') });
  }

  it('reads a declared risk array', async () => {
    const loaded = await manifestWith('declared', { name: 'declared.run', risk: ['network', 'exec'] });
    expect(loaded.ok ? loaded.value.tools[0]?.risk : loaded.error).toEqual(['network', 'exec']);
  });

  it('refuses an unknown class, naming the file and the tool', async () => {
    const loaded = await manifestWith('unknown', { name: 'unknown.run', risk: ['read', 'root'] });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    const [problem] = loaded.error;
    expect(problem?.rule).toBe('manifest-schema');
    expect(problem?.file).toBe(path.join(workspace, 'unknown', MANIFEST_FILE));
    expect(problem?.message).toContain('/tools/0/risk/1');
    expect(problem?.message).toContain('unknown.run');
  });

  it('defaults conservatively: read and write, plus exec when the manifest marks the tool risky', () => {
    expect(toolpackRisk({})).toEqual(['read', 'write']);
    expect(toolpackRisk({ risky: true })).toEqual(['read', 'write', 'exec']);
    expect(toolpackRisk({ risky: true, risk: ['read'] })).toEqual(['read']);
  });
});

describe('config tools.risk', () => {
  it('overrides by exact name over the longest pattern over *', () => {
    const table = { '*': ['read'], 'plan.*': ['write'], 'plan.delete': ['write', 'exec'] } as const;
    expect(withRiskOverride(plainTool('plan.delete', { risk: ['read'] }), table).risk).toEqual([
      'write',
      'exec',
    ]);
    expect(withRiskOverride(plainTool('plan.add', { risk: ['read'] }), table).risk).toEqual(['write']);
    expect(withRiskOverride(plainTool('other', { risk: ['network'] }), table).risk).toEqual(['read']);
    expect(withRiskOverride(plainTool('other', { risk: ['network'] }), {}).risk).toEqual(['network']);
  });

  it("is protected from the model's gateway tool", () => {
    expect(findToolProtectedPaths()).toContainEqual({ path: ['tools', 'risk'], kind: 'value' });
  });

  it('is validated: an unknown class is refused with its path', () => {
    const result = validateConfig({ tools: { risk: { 'plan.*': ['root'] } } });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result.ok ? {} : result.error)).toContain('/tools/risk/plan.*/0');
  });
});

describe('risk summary', () => {
  function registryOf(...tools: Tool[]) {
    const registry = createToolRegistry({ unmet: (tool) => unmetRequirement(tool, configOf()) });
    for (const tool of tools) registry.register(tool, 'test');
    return registry;
  }

  it('is the union of the classes the allowlist lets the agent see, owner-only ones marked', () => {
    const registry = registryOf(
      plainTool('file.read', { risk: ['read'] }),
      plainTool('web.fetch', { risk: ['network'] }),
      plainTool('shell.exec', { risk: ['read', 'exec'], ownerOnly: true }),
      plainTool('gateway', { risk: ['control-plane'], ownerOnly: true }),
    );
    expect(riskSummary(registry, ['file.read', 'shell.*'])).toEqual({
      all: ['read', 'exec'],
      ownerOnly: ['exec'],
      unavailable: [],
    });
    expect(riskSummaryText(riskSummary(registry, ['*']))).toBe(
      'read, network, exec (owner only), control-plane (owner only)',
    );
    expect(riskSummaryText(riskSummary(registry, []))).toBe('none (no tools)');
  });

  it('counts a tool without risk as read and write', () => {
    expect(riskSummary(registryOf(plainTool('extra')), ['*']).all).toEqual(['read', 'write']);
  });
});

describe('approval defaults follow risk', () => {
  it('exec and control-plane ask, risky asks, the rest does not', () => {
    expect(asksByDefault(plainTool('a', { risk: ['read', 'exec'] }))).toBe(true);
    expect(asksByDefault(plainTool('a', { risk: ['control-plane'] }))).toBe(true);
    expect(asksByDefault(plainTool('a', { risk: ['read'], risky: true }))).toBe(true);
    expect(asksByDefault(plainTool('a', { risk: ['read', 'write', 'network', 'messaging'] }))).toBe(false);
  });

  it('an exec tool is gated as risky, and approvals.tools still wins', async () => {
    const gated: GatedCall[] = [];
    const registry = createToolRegistry();
    registry.register(plainTool('pack.run', { risk: ['exec'] }), 'test');
    registry.register(plainTool('pack.look', { risk: ['read'] }), 'test');
    const context = testToolContext(logger);
    context.services.approvals = {
      check: async (call: GatedCall) => {
        gated.push(call);
        return { status: 'approved', by: 'policy' };
      },
    } as unknown as NonNullable<typeof context.services.approvals>;
    const policy = { allows: () => true, isOwner: true };
    await registry.execute('pack.run', '{}', policy, context);
    await registry.execute('pack.look', '{}', policy, context);
    expect(gated.map((call) => [call.tool, call.review.risky])).toEqual([
      ['pack.run', true],
      ['pack.look', false],
    ]);
    expect(resolvePolicy(configOf(), 'main', 'pack.run', true)).toBe('ask');
    const overridden = configOf({ approvals: { tools: { 'pack.*': 'auto' } } });
    expect(resolvePolicy(overridden, 'main', 'pack.run', true)).toBe('auto');
  });
});

describe('requires', () => {
  const attach = plainTool('chat.attach', { risk: ['messaging'], requires: ['chat-channel'] });
  const noChat = configOf({ channels: { webchat: { enabled: false } } });

  it('hides a tool whose prerequisite is missing and refuses it with the reason', async () => {
    const registry = createToolRegistry({ unmet: (tool) => unmetRequirement(tool, noChat) });
    registry.register(attach, 'test');
    const policy = { allows: () => true, isOwner: true };
    expect(registry.visible(policy)).toEqual([]);
    expect(registry.unavailable()).toEqual([
      { name: 'chat.attach', reason: expect.stringContaining('chat channel') },
    ]);
    expect(riskSummary(registry, ['*']).unavailable.map((tool) => tool.name)).toEqual(['chat.attach']);
    const outcome = await registry.execute('chat.attach', '{}', policy, testToolContext(logger));
    expect(outcome).toMatchObject({ isError: true });
    expect(outcome.content).toContain('unavailable here: it needs a chat channel');
  });

  it('shows it when the prerequisite is there (webchat is on by default)', () => {
    const registry = createToolRegistry({ unmet: (tool) => unmetRequirement(tool, configOf()) });
    registry.register(attach, 'test');
    expect(registry.visible({ allows: () => true, isOwner: true }).map((tool) => tool.name)).toEqual([
      'chat.attach',
    ]);
  });

  it('chat.attach declares it', () => {
    expect(GATEWAY_TOOLS.find((tool) => tool.name === 'chat.attach')?.requires).toEqual(['chat-channel']);
  });
});
