export type { McpServerStatus } from './mcp-connection.js';
export {
  createMcpServers,
  type McpServers,
  type McpServersOptions,
  type McpToolTarget,
} from './mcp-servers.js';
export { type McpCallResult, type McpToolInfo, mcpToolName, mcpToolRisk, resultValue } from './mcp-tool.js';
export { probeMcpServers } from './probe.js';
export { mcpHeaderSecrets } from './secrets.js';
