import type { FastifyInstance } from 'fastify';
import { type AccessPolicy, requireOwner } from '../identity.js';
import { NO_QUERY } from '../query-schema.js';

/** A chat channel as the supervisor sees it; `reason` (scrubbed) says why it is not connected. */
export interface ChannelStatus {
  name: string;
  /** `connected`, `connecting`, `retrying`, `refused` or `deaf`. */
  state: string;
  reason?: string;
  /** Failed attempts since it last connected. */
  attempts: number;
  /** When the state last changed (ISO time). */
  since?: string;
  /** How often its connection was found deaf (open, hearing nothing) and opened again. */
  deafReconnects?: number;
  /** The last time, and why (scrubbed). */
  lastDeaf?: { at: string; reason: string };
}

/** A configured model and the outcome of its last call in this process (no call yet: none). */
export interface ModelStatus {
  name: string;
  /** The provider's own line (`openai gpt-4o-mini at http://…`), scrubbed. */
  description: string;
  lastCall?: { at: string; ok: boolean; ms: number; error?: string };
  /** Skipped by every model chain until then (ISO time): it answered 429 with a `retry-after`. */
  cooldownUntil?: string;
}

/** The last time a fallback answered in place of an agent's first model (texts scrubbed). */
export interface FailoverView {
  at: string;
  agentId: string;
  from: string;
  to: string;
  why: string;
}

/** One agent on the health page: its model chain and its risk summary (the union of its tools' classes). */
export interface AgentRiskStatus {
  id: string;
  /** `a → b`, or `(no model)`. */
  models: string;
  /** Every class its tools carry, in the order of `RISK_CLASSES`. */
  risk: string[];
  /** Those of them only owner-only tools carry. */
  ownerOnly: string[];
  /** Tools its allowlist names that are hidden for a missing prerequisite, with why. */
  unavailable: { name: string; reason: string }[];
}

/** What `GET /api/status` answers: the operator's health page. Nothing here may hold a secret. */
/** An MCP server as the health page shows it (the gateway's `McpServerStatus`, declared here). */
export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http';
  state: string;
  tools: number;
  failures: number;
  error?: string;
  pid?: number;
}

export interface StatusView {
  version: string;
  /** When the process started (ISO time); uptime counts from it, across in-process restarts. */
  startedAt: string;
  uptimeSeconds: number;
  channels: ChannelStatus[];
  store: { driver: string; location: string; reachable: boolean; error?: string };
  models: ModelStatus[];
  /** Each configured MCP server: its state, tool count, failed attempts and last error (scrubbed). */
  mcpServers?: McpServerView[];
  /** The last model failover since the gateway started, if any. */
  lastFailover?: FailoverView;
  /** This process's starts and in-process restarts, newest first. */
  restarts: { at: string; reason: string }[];
  /**
   * The latest config changes from the audit log (each one restarts the gateway), newest first,
   * named as the history (`ConfigChange`) names them.
   */
  configChanges: {
    number: number;
    ts: string;
    actor: string;
    action: string;
    changedPaths: string[];
    note?: string;
  }[];
  /** Each configured agent's risk summary. */
  agents: AgentRiskStatus[];
}

/** What the HTTP layer needs to answer `/api/status`; the gateway builds it from the live parts. */
export interface StatusPort {
  status(): Promise<StatusView>;
}

/** `GET /api/status`, owner-only: channels with their reasons, store, models, uptime, restarts. */
export function registerStatusRoute(
  app: FastifyInstance,
  options: { status: StatusPort; access: AccessPolicy },
): void {
  app.get('/api/status', { schema: { querystring: NO_QUERY } }, async (request, reply) => {
    if (!requireOwner(request, reply, options.access)) return reply;
    return options.status.status();
  });
}
