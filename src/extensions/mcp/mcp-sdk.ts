/**
 * The SDK's classes the client uses, imported with a server's first attempt (`loadSdk`): a gateway
 * with no MCP server configured never loads the SDK nor zod (issue 36: 218 ms and 27 MB at start).
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { StdioServerTransport } from './stdio-transport.js';
