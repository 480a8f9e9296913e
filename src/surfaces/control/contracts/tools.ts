// The Tools page: WebUI entries, the roster, per-tool status and the toolpacks report. Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';

// The Tools page: the project's WebUI entries, the roster, per-tool status (all under
// `/api/projects/<project>/`) and the toolpacks report (`/api/toolpacks`).

/** One toolpack WebUI entry: every key present, what the manifest leaves out is null. */
export const WebuiEntryView = Type.Object({
  /** The id of the toolpack that declares the entry. */
  toolpack: Type.String(),
  id: Type.String(),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.Literal('panel'), Type.Literal('action')]),
  /** A JSON Schema with `type: "object"` at the top; a run's input is validated against it. */
  inputSchema: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  submitLabel: Type.Union([Type.String(), Type.Null()]),
});
export type WebuiEntryView = Static<typeof WebuiEntryView>;

/** `GET /api/projects/:project/tool-ui`. */
export const WebuiEntriesView = Type.Object({ project: Type.String(), entries: Type.Array(WebuiEntryView) });
export type WebuiEntriesView = Static<typeof WebuiEntriesView>;

/** `POST /api/projects/:project/tool-ui/:toolpack/:entry`: what the handler answered. */
export const WebuiAnswer = Type.Object({
  /** Text (shown as Markdown) or any JSON. */
  output: Type.Unknown(),
  title: Type.Optional(Type.String()),
  /** `metrics` (`[{ label, value, description? }]`) is shown as cards. */
  metadata: Type.Optional(Type.Unknown()),
});
export type WebuiAnswer = Static<typeof WebuiAnswer>;

/** An agent offered in the Tools page's `sender`, `recipient`, … dropdowns. */
export const RosterAgentView = Type.Object({ id: Type.String(), displayName: Type.String() });
export type RosterAgentView = Static<typeof RosterAgentView>;

/** `GET /api/projects/:project/roster`. */
export const RosterView = Type.Object({ agents: Type.Array(RosterAgentView) });
export type RosterView = Static<typeof RosterView>;

const CallStatus = Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]);

/** One tool's status, as Suzumio's Tools panel shows it (`listToolStatus`'s shape). */
export const ToolStatusView = Type.Object({
  tool: Type.String(),
  source: Type.String(),
  toolpackId: Type.Optional(Type.String()),
  toolpackKind: Type.Optional(Type.Union([Type.Literal('builtin'), Type.Literal('local')])),
  description: Type.String(),
  enabledForAgents: Type.Array(Type.String()),
  callCount: Type.Number(),
  runningCount: Type.Number(),
  completedCount: Type.Number(),
  failedCount: Type.Number(),
  lastStatus: Type.Optional(CallStatus),
  lastAgentId: Type.Optional(Type.String()),
  lastAt: Type.Optional(Type.String()),
  lastError: Type.Optional(Type.String()),
  submittedReportPath: Type.Optional(Type.String()),
});
export type ToolStatusView = Static<typeof ToolStatusView>;

/** `GET /api/projects/:project/tool-status`. */
export const ToolStatusPage = Type.Object({ project: Type.String(), tools: Type.Array(ToolStatusView) });
export type ToolStatusPage = Static<typeof ToolStatusPage>;

/** One controller's scheduler hook: ok, or failing with its last error and backoff. */
export const SchedulerHookView = Type.Object({
  toolpackId: Type.String(),
  status: Type.Union([Type.Literal('ok'), Type.Literal('failing')]),
  /** Failures in a row (0 when the last run succeeded). */
  failures: Type.Number(),
  /** The last error's message, while failing (scrubbed like the log). */
  error: Type.Optional(Type.String()),
  /** When the current run of failures began (ISO time). */
  since: Type.Optional(Type.String()),
  /** The wait before the next attempt. */
  backoffMs: Type.Optional(Type.Number()),
  /** When the next attempt runs (ISO time), while failing. */
  nextAttemptAt: Type.Optional(Type.String()),
});
export type SchedulerHookView = Static<typeof SchedulerHookView>;

/** `GET /api/toolpacks`: what loaded, why the others were skipped, each scheduler hook's health. */
export const ToolpackReport = Type.Object({
  toolpacks: Type.Array(
    Type.Object({
      id: Type.String(),
      directory: Type.String(),
      tools: Type.Array(Type.String()),
      webui: Type.Array(Type.String()),
      /** Suzumio-internal APIs the controller read that are not provided (`store.db`). */
      notProvided: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  builtins: Type.Array(Type.String()),
  problems: Type.Array(
    Type.Object({
      file: Type.String(),
      rule: Type.String(),
      message: Type.String(),
      pointer: Type.Optional(Type.String()),
    }),
  ),
  schedulerHooks: Type.Array(SchedulerHookView),
});
export type ToolpackReport = Static<typeof ToolpackReport>;
