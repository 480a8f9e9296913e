// Approvals, the Health page's status and the Logs page. Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';

/** `GET /api/approvals`: one request, waiting or decided. */
export const ApprovalView = Type.Object({
  id: Type.String(),
  /** What a person types: `/approve K7Q2XD`. */
  code: Type.String(),
  kind: Type.Union([Type.Literal('tool'), Type.Literal('command')]),
  tool: Type.String(),
  agentId: Type.String(),
  sessionKey: Type.String(),
  requester: Type.String(),
  arguments: Type.String(),
  details: Type.Optional(Type.String()),
  approvers: Type.Array(Type.String()),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('used'),
    Type.Literal('denied'),
    Type.Literal('expired'),
  ]),
  decidedBy: Type.Optional(Type.String()),
  decidedAt: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});
export type ApprovalView = Static<typeof ApprovalView>;

/** A chat channel as the supervisor sees it; `reason` (scrubbed) says why it is not connected. */
export const ChannelStatus = Type.Object({
  name: Type.String(),
  /** `connected`, `connecting`, `retrying`, `refused` or `deaf`. */
  state: Type.String(),
  reason: Type.Optional(Type.String()),
  /** Failed attempts since it last connected. */
  attempts: Type.Number(),
  /** When the state last changed (ISO time). */
  since: Type.Optional(Type.String()),
  /** How often its connection was found deaf (open, hearing nothing) and opened again. */
  deafReconnects: Type.Optional(Type.Number()),
  /** The last time, and why (scrubbed). */
  lastDeaf: Type.Optional(Type.Object({ at: Type.String(), reason: Type.String() })),
});
export type ChannelStatus = Static<typeof ChannelStatus>;

/** A configured model and the outcome of its last call in this process (no call yet: none). */
export const ModelStatus = Type.Object({
  name: Type.String(),
  /** The provider's own line (`openai gpt-4o-mini at http://…`), scrubbed. */
  description: Type.String(),
  lastCall: Type.Optional(
    Type.Object({
      at: Type.String(),
      ok: Type.Boolean(),
      ms: Type.Number(),
      error: Type.Optional(Type.String()),
    }),
  ),
  /** Skipped by every model chain until then (ISO time): it answered 429 with a `retry-after`. */
  cooldownUntil: Type.Optional(Type.String()),
});
export type ModelStatus = Static<typeof ModelStatus>;

/** The last time a fallback answered in place of an agent's first model (texts scrubbed). */
export const FailoverView = Type.Object({
  at: Type.String(),
  agentId: Type.String(),
  from: Type.String(),
  to: Type.String(),
  why: Type.String(),
});
export type FailoverView = Static<typeof FailoverView>;

/** One agent on the health page: its model chain and its risk summary (the union of its tools' classes). */
export const AgentRiskStatus = Type.Object({
  id: Type.String(),
  /** `a → b`, or `(no model)`. */
  models: Type.String(),
  /** Every class its tools carry, in the order of `RISK_CLASSES`. */
  risk: Type.Array(Type.String()),
  /** Those of them only owner-only tools carry. */
  ownerOnly: Type.Array(Type.String()),
  /** Tools its allowlist names that are hidden for a missing prerequisite, with why. */
  unavailable: Type.Array(Type.Object({ name: Type.String(), reason: Type.String() })),
});
export type AgentRiskStatus = Static<typeof AgentRiskStatus>;

/** An MCP server as the health page shows it. */
export const McpServerView = Type.Object({
  name: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
  state: Type.String(),
  tools: Type.Number(),
  failures: Type.Number(),
  error: Type.Optional(Type.String()),
  pid: Type.Optional(Type.Number()),
});
export type McpServerView = Static<typeof McpServerView>;

/** `GET /api/status`: the operator's health page. Nothing here may hold a secret. */
export const StatusView = Type.Object({
  version: Type.String(),
  /** When the process started (ISO time); uptime counts from it, across in-process restarts. */
  startedAt: Type.String(),
  uptimeSeconds: Type.Number(),
  channels: Type.Array(ChannelStatus),
  store: Type.Object({
    driver: Type.String(),
    location: Type.String(),
    reachable: Type.Boolean(),
    error: Type.Optional(Type.String()),
  }),
  models: Type.Array(ModelStatus),
  /** Each configured MCP server: its state, tool count, failed attempts and last error (scrubbed). */
  mcpServers: Type.Optional(Type.Array(McpServerView)),
  /** The last model failover since the gateway started, if any. */
  lastFailover: Type.Optional(FailoverView),
  /** This process's starts and in-process restarts, newest first. */
  restarts: Type.Array(Type.Object({ at: Type.String(), reason: Type.String() })),
  /** The latest config changes from the audit log (each one restarts the gateway), newest first. */
  configChanges: Type.Array(
    Type.Object({
      number: Type.Number(),
      ts: Type.String(),
      actor: Type.String(),
      action: Type.String(),
      changedPaths: Type.Array(Type.String()),
      note: Type.Optional(Type.String()),
    }),
  ),
  /** Each configured agent's risk summary. */
  agents: Type.Array(AgentRiskStatus),
});
export type StatusView = Static<typeof StatusView>;

/** Log levels as the Logs page filters them, least severe first. */
export const LogLevelName = Type.Union([
  Type.Literal('trace'),
  Type.Literal('debug'),
  Type.Literal('info'),
  Type.Literal('warn'),
  Type.Literal('error'),
  Type.Literal('fatal'),
]);
export type LogLevelName = Static<typeof LogLevelName>;

/** One line of the gateway's log, secrets scrubbed as in the log file. */
export const LogLineView = Type.Object({
  /** Its number since the process started: `?after=` of the newest one asks for what follows. */
  seq: Type.Number(),
  /** ISO time (UTC). */
  time: Type.String(),
  level: LogLevelName,
  /** The part of the gateway that wrote it (`router`, `http`, …), when it says. */
  component: Type.Optional(Type.String()),
  /** The line as `switchboard logs` prints it: time, level, component, message, fields, stack. */
  text: Type.String(),
});
export type LogLineView = Static<typeof LogLineView>;

/** `GET /api/logs?after&level&q`: the matching lines newer than `after`, oldest first. */
export const LogPage = Type.Object({
  lines: Type.Array(LogLineView),
  /** The newest line's number (matching or not): the next `after`. */
  next: Type.Number(),
  /** How many lines the gateway keeps for this page (the newest ones). */
  kept: Type.Number(),
});
export type LogPage = Static<typeof LogPage>;
