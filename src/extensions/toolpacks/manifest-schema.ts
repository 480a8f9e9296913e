import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../base/config/index.js';
import { RISK_CLASSES } from '../../engine/tools/index.js';

/**
 * The TypeBox schema of `suzumio.toolpack.json`, as Suzumio reads it. Like Suzumio, objects accept
 * keys they do not know (a manifest written for a newer Suzumio still loads here); every known key
 * is checked. Fields that carry their own rule code (the id's characters, tool names, WebUI ids and
 * kinds) keep their constraint here too, so the schema alone describes a valid manifest; the
 * validator reports those failures under the specific rule (`manifest-content.ts`).
 */

export const MANIFEST_FILE = 'suzumio.toolpack.json';
export const DEFAULT_RUNNER = 'runner.mjs';
export const DEFAULT_CONTROLLER = 'controller.mjs';

/**
 * Letters, digits, `.`, `_`, `-` (Suzumio's toolpack id rule), but not `.` or `..`: ids name
 * directories (`toolpack-state/<id>`) and URL segments, where those two mean "here" and "up".
 */
export const TOOLPACK_ID_PATTERN = '^(?!\\.\\.?$)[A-Za-z0-9._-]+$';
/** The tool registry's rule: letters, digits, `_`, `-` in parts joined by `.`, and no `__` anywhere. */
export const TOOL_NAME_PATTERN = '^(?!.*__)[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$';
/** WebUI entry ids appear in URLs (`/tool-ui/:toolpack/:entry`), so they follow the toolpack id rule. */
export const WEBUI_ID_PATTERN = TOOLPACK_ID_PATTERN;

/** Suzumio refuses blank names and descriptions. */
export const NOT_BLANK_PATTERN = '\\S';

/** Any JSON object here; whether it is a usable JSON Schema is checked by compiling it. */
const JsonSchemaObject = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'A JSON Schema (draft-07, as the tool registry compiles it) with `type: "object"` at the top.',
});

export const ManifestToolSchema = Type.Object(
  {
    name: Type.String({ pattern: TOOL_NAME_PATTERN, description: 'Tool name the model calls.' }),
    description: Type.String({
      pattern: NOT_BLANK_PATTERN,
      description: 'What the tool does, for the model.',
    }),
    inputSchema: JsonSchemaObject,
    risky: Type.Optional(
      Type.Boolean({
        description:
          'Switchboard: calls ask an approver by default (`approvals.tools` in the gateway config may say otherwise). Suzumio ignores it.',
      }),
    ),
    restartSafe: Type.Optional(
      Type.Boolean({
        description:
          'Switchboard: a call cut short by a restart (its result never recorded) may be run again when the turn resumes (read-only or idempotent tools). Absent: false, and the model is told the outcome is unknown. Suzumio ignores it.',
      }),
    ),
    risk: Type.Optional(
      Type.Array(StringEnum(RISK_CLASSES, { description: 'A risk class.' }), {
        uniqueItems: true,
        description:
          "Switchboard: what the tool may do (`read`, `write`, `network`, `exec`, `control-plane`, `messaging`), for the agents' risk summaries; `exec` and `control-plane` ask an approver by default. Absent: `read`, `write` (and `exec` when `risky`). Suzumio ignores it.",
      }),
    ),
  },
  { description: 'A model-facing tool, run by the runner module.' },
);

export const ManifestWebuiEntrySchema = Type.Object(
  {
    id: Type.String({ pattern: WEBUI_ID_PATTERN, description: 'Entry id, unique in the toolpack.' }),
    title: Type.String({ pattern: NOT_BLANK_PATTERN, description: 'Heading shown in the Tools page.' }),
    description: Type.Optional(Type.String({ description: 'Text shown under the title.' })),
    kind: Type.Optional(
      StringEnum(['panel', 'action'] as const, {
        description:
          '`panel` (the default, as in Suzumio) shows output (optionally refreshed with input); `action` is a form that runs.',
      }),
    ),
    inputSchema: Type.Optional(JsonSchemaObject),
    submitLabel: Type.Optional(Type.String({ description: 'Label of the submit button.' })),
  },
  { description: 'A user-facing control handled by the controller module.' },
);

export const ToolpackManifestSchema = Type.Object(
  {
    id: Type.String({ pattern: TOOLPACK_ID_PATTERN, description: 'Toolpack id; equals the configured id.' }),
    runner: Type.Optional(
      Type.String({
        description: `Runner module, relative to the toolpack directory; \`.mjs\`. Blank means \`${DEFAULT_RUNNER}\`.`,
      }),
    ),
    controller: Type.Optional(
      Type.String({
        description: `Controller module, relative to the toolpack directory; \`.mjs\`. Blank means \`${DEFAULT_CONTROLLER}\`.`,
      }),
    ),
    tools: Type.Array(ManifestToolSchema, {
      description:
        'Model-facing tools; may be empty (a WebUI-only toolpack needs no runner), but a toolpack offers at least one tool or WebUI entry.',
    }),
    webui: Type.Optional(Type.Array(ManifestWebuiEntrySchema, { description: 'WebUI entries.' })),
  },
  { title: 'Suzumio toolpack manifest', description: `The \`${MANIFEST_FILE}\` of a local toolpack.` },
);

export type ToolpackManifest = Static<typeof ToolpackManifestSchema>;
export type ManifestTool = Static<typeof ManifestToolSchema>;
export type ManifestWebuiEntry = Static<typeof ManifestWebuiEntrySchema>;
