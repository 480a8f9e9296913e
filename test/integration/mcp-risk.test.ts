import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { riskSummaryText, type Tool } from '../../src/engine/tools/index.js';
import { createMcpServers } from '../../src/extensions/mcp/index.js';
import { loadConfiguredToolpacks } from '../../src/extensions/toolpacks/index.js';
import { describeAgents, describeRegistry } from '../../src/surfaces/control/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { mcpServerEntry } from '../helpers/mcp-servers.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/** The risk classes MCP tools get from their server's annotations, with server-filesystem. */

const cleanups = cleanupAfterEach();

async function filesystemTools(risk?: string[]): Promise<Map<string, Tool>> {
  const dir = await makeTempDir('switchboard-mcp-risk-');
  cleanups.push(() => removeDir(dir));
  const checked = validateConfig({
    mcp: {
      servers: {
        files: {
          command: process.execPath,
          args: [mcpServerEntry('server-filesystem'), dir],
          ...(risk ? { risk } : {}),
        },
      },
    },
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  const servers = createMcpServers({
    config: checked.value,
    configPath: `${dir}/gateway.jsonc`,
    logger: createLogger({ level: 'silent', destination: { write: () => undefined } }).logger,
    scrub: (text) => text,
  });
  cleanups.push(() => servers.stop());
  await servers.start();
  const tools = new Map<string, Tool>();
  servers.attach({
    register: (tool) => void tools.set(tool.name, tool),
    unregister: (name) => void tools.delete(name),
  });
  return tools;
}

describe('MCP tool risk', () => {
  it("derives server-filesystem's risk from its annotations: reads carry read, writes carry write", async () => {
    const tools = await filesystemTools();
    expect(tools.get('mcp.files.read_text_file')?.risk).toEqual(['read']);
    expect(tools.get('mcp.files.list_directory')?.risk).toEqual(['read']);
    expect(tools.get('mcp.files.write_file')?.risk).toContain('write');
    expect(tools.get('mcp.files.edit_file')?.risk).toContain('write');
    expect(tools.get('mcp.files.write_file')?.readOnly).toBe(false);
  });

  it("takes the server's configured risk instead", async () => {
    const tools = await filesystemTools(['read', 'write', 'exec']);
    expect(tools.get('mcp.files.read_text_file')?.risk).toEqual(['read', 'write', 'exec']);
  });

  it("counts a server's tools in the offline summary of doctor and switchboard agents", async () => {
    const dir = await makeTempDir('switchboard-mcp-offline-');
    cleanups.push(() => removeDir(dir));
    const checked = validateConfig({
      agents: { main: { tools: ['mcp.files.*'] } },
      mcp: {
        servers: { files: { command: process.execPath, args: [mcpServerEntry('server-filesystem'), dir] } },
      },
    });
    if (!checked.ok) throw new Error(JSON.stringify(checked.error));
    const config = checked.value;
    const configPath = `${dir}/gateway.jsonc`;
    const logger = createLogger({ level: 'silent', destination: { write: () => undefined } }).logger;
    const toolpacks = await loadConfiguredToolpacks(config, configPath);
    const registry = await describeRegistry({ config, configPath, toolpacks, logger });
    const [main] = describeAgents(config, registry);
    if (!main) throw new Error('describeAgents listed no agent');
    // The agent may use only the filesystem server's tools: read and write come from them.
    expect(riskSummaryText(main.risk)).toBe('read, write');
  });
});
