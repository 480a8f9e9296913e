import { Type } from '@sinclair/typebox';
import { TOOL_PATTERN } from './schema-approvals.js';
import { AGENT_EDITABLE_KEYWORD, Strict, StringEnum, TOOL_PROTECTED_KEYWORD } from './schema-helpers.js';

/** The risk classes, as `Tool.risk` in src/engine/tools has them (config is below tools: kept equal by a unit test). */
export const CONFIG_RISK_CLASSES = [
  'read',
  'write',
  'network',
  'exec',
  'control-plane',
  'messaging',
] as const;

/** A toolpack id: letters, digits, `.`, `_`, `-`; not `.` or `..` (ids name directories). */
const TOOLPACK_ID_PATTERN = '^(?!\\.\\.?$)[A-Za-z0-9._-]+$';

/** `tools`: which toolpacks are registered, and the built-in toolpacks' settings. */
export const ToolsSchema = Strict(
  {
    toolpacks: Type.Array(
      Type.Union([
        StringEnum(['core', 'file', 'shell', 'web'] as const, {
          description: 'A built-in toolpack, by name.',
        }),
        Strict(
          {
            path: Type.String({
              minLength: 1,
              description:
                'Directory holding `suzumio.toolpack.json`, relative to the config file. HTTP(S) URLs are refused.',
            }),
            id: Type.String({
              pattern: TOOLPACK_ID_PATTERN,
              description:
                'Toolpack id (letters, digits, `.`, `_`, `-`; not `.` or `..`); must equal the manifest `id`.',
            }),
          },
          { description: 'A local toolpack: a directory with a Suzumio-compatible manifest.' },
        ),
      ]),
      {
        default: [],
        description:
          'Toolpacks whose tools are registered: built-in names (`core`, `file`, `shell`, `web`) and local `{ path, id }` entries. `agents.<id>.tools` decides which registered tools each agent sees. A broken local toolpack is reported and skipped.',
        // Local entries run code on this machine, `shell` runs commands: not the model's to add.
        [TOOL_PROTECTED_KEYWORD]: 'added-code',
      },
    ),
    mounts: Type.Array(
      Strict(
        {
          name: Type.String({
            pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
            description: 'The mount appears to file tools as `/mnt/<name>`.',
          }),
          path: Type.String({
            minLength: 1,
            description: 'Host file or directory, relative to the config file.',
          }),
        },
        { description: 'A read-only input for `file.read`.' },
      ),
      {
        default: [],
        description: 'Host paths `file.read` may read, as `/mnt/<name>/…`.',
        // A mount of the config file or the state dir would hand its secrets to the model.
        [TOOL_PROTECTED_KEYWORD]: true,
      },
    ),
    runnerTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 3600000,
      default: 60000,
      description: 'How long a toolpack runner handler may take before the call fails.',
    }),
    runnerSandbox: StringEnum(['auto', 'required', 'off'] as const, {
      default: 'auto',
      description:
        "How toolpack runner processes are kept off the network, away from the host's files and sockets and unable to signal the gateway: `auto` uses bubblewrap (a file system with only Node, the toolpacks and the agent's folders) and, on a machine without it, runs them with the permission model only and warns; `required` refuses to start a runner without the sandbox; `off` runs without one.",
    }),
    shell: Strict(
      {
        timeoutMs: Type.Integer({
          minimum: 100,
          maximum: 3600000,
          default: 30000,
          description: 'How long `shell.exec` may run a command.',
        }),
        maxOutputBytes: Type.Integer({
          minimum: 1024,
          maximum: 10485760,
          default: 65536,
          description: 'Output kept per stream; the rest is cut and the cut is said.',
        }),
      },
      { default: {}, description: 'The `shell` toolpack (owner-only).' },
    ),
    risk: Type.Record(
      Type.String(),
      Type.Array(StringEnum(CONFIG_RISK_CLASSES, { description: 'A risk class.' }), {
        uniqueItems: true,
        description: 'The classes the tool carries, in place of its own.',
      }),
      {
        propertyNames: { pattern: TOOL_PATTERN },
        default: {},
        description:
          "Risk classes per tool, over what the tool declares: an exact name, `namespace.*` or `*` (the exact name wins, then the longest pattern). `exec` and `control-plane` ask an approver by default; every agent's risk summary (`/status`, `doctor`, `switchboard agents`) is the union of its tools' classes.",
        // What a tool may do, and so whether it asks, is not the model's to lower.
        [TOOL_PROTECTED_KEYWORD]: true,
      },
    ),
    web: Strict(
      {
        allowPrivate: Type.Boolean({
          default: false,
          description: '`web.fetch` may reach loopback and private addresses.',
        }),
        timeoutMs: Type.Integer({
          minimum: 100,
          maximum: 600000,
          default: 15000,
          description: 'How long `web.fetch` waits for a page.',
        }),
        maxBytes: Type.Integer({
          minimum: 1024,
          maximum: 52428800,
          default: 1048576,
          description: 'Largest body `web.fetch` reads; the rest is cut and the cut is said.',
        }),
      },
      { default: {}, description: 'The `web` toolpack.' },
    ),
  },
  // What tools exist and how they are fenced (sandbox, private addresses): the owner's.
  {
    default: {},
    description: 'Tool registration and the built-in toolpacks.',
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);
