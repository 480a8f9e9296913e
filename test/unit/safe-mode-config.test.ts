import { describe, expect, it } from 'vitest';
import { hashConfigText, validateConfig } from '../../src/base/config/index.js';
import { safeModeConfig } from '../../src/host/safe-mode.js';

// Safe mode's config (issue 32 §2) is the file's config with platforms, local toolpacks and MCP
// servers not started, in memory: the file's text, hash and the original object stay as they were.

describe('safeModeConfig', () => {
  it('drops Slack, Discord, local toolpacks and MCP servers from what runs, and changes nothing it was given', () => {
    const raw = {
      channels: {
        slack: { botToken: 'xoxb-1', appToken: 'xapp-1' },
        discord: { token: 'discord-token' },
      },
      tools: { toolpacks: ['core', 'shell', { path: './packs/plan', id: 'plan' }] },
      mcp: { servers: { files: { command: 'node', args: ['server.js'] } } },
    };
    const validated = validateConfig(raw);
    if (!validated.ok) throw new Error(JSON.stringify(validated.error));
    const text = JSON.stringify(raw);
    const loaded = {
      path: '/etc/switchboard/gateway.jsonc',
      origin: 'option' as const,
      hash: hashConfigText(text),
      text,
      config: validated.value,
    };
    const before = structuredClone(loaded);
    const safe = safeModeConfig(loaded);
    expect(safe.config.channels.slack).toBeUndefined();
    expect(safe.config.channels.discord).toBeUndefined();
    expect(safe.config.channels.webchat.enabled).toBe(true);
    expect(safe.config.tools.toolpacks).toEqual(['core', 'shell']);
    expect(safe.config.mcp.servers.files?.enabled).toBe(false);
    expect({ text: safe.text, hash: safe.hash, path: safe.path }).toEqual({
      text: loaded.text,
      hash: loaded.hash,
      path: loaded.path,
    });
    expect(loaded).toEqual(before);
  });
});
