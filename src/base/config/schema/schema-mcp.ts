import { Type } from '@sinclair/typebox';
import {
  AGENT_EDITABLE_KEYWORD,
  Secret,
  Strict,
  StringEnum,
  TOOL_PROTECTED_KEYWORD,
} from './schema-helpers.js';

/** A server name: it becomes the middle part of `mcp.<server>.<tool>`. */
export const MCP_SERVER_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$';

const RISK = ['read', 'write', 'network', 'exec', 'control-plane', 'messaging'] as const;

export const McpServerSchema = Strict(
  {
    command: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Program the gateway starts and talks to over stdio (e.g. `npx`). Give this or `url`.',
      }),
    ),
    args: Type.Array(Type.String(), { default: [], description: 'Arguments of `command`.' }),
    env: Type.Record(
      Type.String(),
      Secret({ description: 'A variable; `${ENV_NAME}` reads the gateway’s.' }),
      {
        default: {},
        description: 'Environment of `command` (besides PATH and HOME); values are secret.',
      },
    ),
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Working directory of `command`, relative to the config file.',
      }),
    ),
    url: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'Streamable HTTP endpoint of the server. Give this or `command`.',
      }),
    ),
    headers: Type.Record(
      Type.String(),
      Secret({ description: 'A header value; use `${ENV_NAME}` to keep it out of the file.' }),
      { default: {}, description: 'HTTP headers sent with each request to `url` (values are secret).' },
    ),
    risk: Type.Optional(
      Type.Array(StringEnum(RISK, { description: 'A risk class.' }), {
        uniqueItems: true,
        description:
          'Risk classes of every tool of this server, instead of those derived from its tool annotations (read-only → `read`; else `read`, `write`, `network`).',
      }),
    ),
    enabled: Type.Boolean({ default: true, description: 'false: not connected, its tools absent.' }),
    timeoutMs: Type.Integer({
      minimum: 1000,
      maximum: 3600000,
      default: 60000,
      description: 'How long connecting, listing tools or one tool call may take.',
    }),
  },
  { description: 'An MCP server: `command` (stdio, started by the gateway) or `url` (streamable HTTP).' },
);

export const McpSchema = Strict(
  {
    servers: Type.Record(Type.String(), McpServerSchema, {
      propertyNames: { pattern: MCP_SERVER_PATTERN },
      default: {},
      description:
        'MCP servers by name (letters, digits, `_`, `-`); their tools appear as `mcp.<name>.<tool>`.',
    }),
  },
  {
    default: {},
    description: 'Model Context Protocol servers whose tools the agents may use.',
    // A server runs a command or reaches a URL with secret headers: only owners add or change one.
    [TOOL_PROTECTED_KEYWORD]: true,
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);
