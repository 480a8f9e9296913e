import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { type Config, validateConfig } from '../../src/base/config/index.js';
import { createRiskSummaries, createToolRegistry, type Tool } from '../../src/engine/tools/index.js';

/**
 * `/status` and `GET /api/status` read each agent's risk summary at every call: it is kept
 * (issue 36 item 2) until the config or the registry changes.
 */

function configOf(tools: string[]): Config {
  const result = validateConfig({ agents: { main: { tools } } });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, description: name, parameters: Type.Object({}), execute: () => ({ ok: true }), ...extra };
}

function registryOf(...tools: Tool[]) {
  const registry = createToolRegistry();
  for (const each of tools) registry.register(each, 'test');
  return registry;
}

const allowlistOf = (config: Config) => config.agents.main?.tools ?? [];

describe('kept risk summaries', () => {
  it('answer the same summary while nothing changed', () => {
    const summaries = createRiskSummaries(registryOf(tool('files.read', { risk: ['read'] })));
    const config = configOf(['files.*']);
    const first = summaries(allowlistOf(config));
    expect(first.all).toEqual(['read']);
    expect(summaries(allowlistOf(config))).toBe(first);
  });

  it('are computed afresh after a config change', () => {
    const summaries = createRiskSummaries(
      registryOf(tool('files.read', { risk: ['read'] }), tool('shell.run', { risk: ['exec'] })),
    );
    const before = configOf(['files.*']);
    expect(summaries(allowlistOf(before)).all).toEqual(['read']);
    const after = configOf(['files.*', 'shell.*']);
    expect(summaries(allowlistOf(after)).all).toEqual(['read', 'exec']);
    const reverted = configOf(['files.*']);
    expect(summaries(allowlistOf(reverted)).all).toEqual(['read']);
  });

  it('are computed afresh when a tool is registered or removed', () => {
    const registry = registryOf(tool('files.read', { risk: ['read'] }));
    const summaries = createRiskSummaries(registry);
    const allowlist = allowlistOf(configOf(['*']));
    expect(summaries(allowlist).all).toEqual(['read']);
    registry.register(tool('shell.run', { risk: ['exec'] }), 'test');
    expect(summaries(allowlist).all).toEqual(['read', 'exec']);
    registry.unregister('shell.run');
    expect(summaries(allowlist).all).toEqual(['read']);
  });

  it('are computed afresh when a live tool goes down or comes back (an MCP server)', () => {
    let down: string | undefined;
    const registry = registryOf(
      tool('files.read', { risk: ['read'] }),
      tool('remote.deploy', { risk: ['exec'], unavailable: () => down }),
    );
    const summaries = createRiskSummaries(registry);
    const allowlist = allowlistOf(configOf(['*']));
    expect(summaries(allowlist)).toMatchObject({ all: ['read', 'exec'], unavailable: [] });
    down = 'needs MCP server "remote", which is down';
    expect(summaries(allowlist)).toMatchObject({
      all: ['read'],
      unavailable: [{ name: 'remote.deploy', reason: down }],
    });
    down = undefined;
    expect(summaries(allowlist)).toMatchObject({ all: ['read', 'exec'], unavailable: [] });
  });
});
