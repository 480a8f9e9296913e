import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { mcpServerEntry } from '../helpers/mcp-servers.js';
import { childEnvironment, killRunningChildren, runCli, writeConfig } from '../helpers/process.js';

// `switchboard doctor` starts each MCP server once and lists its tools, as a gateway start would.

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-doctor-mcp-');
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await removeDir(dir);
});

describe('switchboard doctor: MCP servers', () => {
  it('says which servers come up with how many tools, and fails on one that does not', async () => {
    const file = await writeConfig(
      dir,
      {
        stateDir: path.join(dir, 'state'),
        http: { port: 8787, token: 'doctor-mcp-token-0123456789' },
        mcp: {
          servers: {
            everything: { command: process.execPath, args: [mcpServerEntry('server-everything'), 'stdio'] },
            broken: { command: process.execPath, args: [path.join(dir, 'no-such-server.js')] },
          },
        },
      },
      'gateway.jsonc',
    );
    const result = await runCli(['doctor', '--config', file], {
      env: childEnvironment({}),
      timeoutMs: 60_000,
    });
    expect(result.stdout).toMatch(/mcp: everything \(stdio\): ready, \d+ tools\n/);
    expect(result.stderr).toContain('mcp: broken (stdio) did not come up:');
    expect(result.stderr).toContain('no-such-server.js');
    expect(result.code).toBe(1);
  }, 90_000);
});
