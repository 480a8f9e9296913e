import type { OutboundMessage } from '../messages/index.js';
import type { ApprovalsPort, HeldCommand } from '../tools/index.js';
import { argumentsHash } from './action-value.js';
import { createApprovalRecords } from './approval-records.js';
import { createApprovalAudit } from './audit.js';
import { decide } from './decide.js';
import { checkCall } from './gate.js';
import { requestMessage } from './request-message.js';
import { type ApprovalsState, armExpiry, expire, openRequest } from './state.js';
import type { ApprovalRecord, ApprovalsOptions } from './types.js';

export interface Approvals extends ApprovalsPort {
  /** Reads the open requests the last process left, expires those whose time is up, arms the rest. */
  start(): Promise<void>;
  /** The open requests (pending, or approved and not yet run), oldest first. */
  open(): ApprovalRecord[];
  /** The latest decided ones (used, denied, expired), newest first: for the approvals inbox. */
  recent(limit: number): Promise<ApprovalRecord[]>;
  /** One request by id, open or decided; undefined when this gateway does not know it. */
  find(id: string): Promise<ApprovalRecord | undefined>;
  /** Stops the expiry timers (the runs waiting are stopped by their own signals). */
  close(): void;
}

/** The approvals service: the gate of every tool call, decisions, held owner commands. */
export function createApprovals(options: ApprovalsOptions): Approvals {
  const now = options.now ?? (() => new Date());
  const state: ApprovalsState = {
    options,
    records: createApprovalRecords(options.store),
    audit: createApprovalAudit({
      stateDir: options.stateDir,
      logger: options.logger,
      now,
      ...(options.onAudit ? { onEvent: options.onAudit } : {}),
    }),
    now,
    waiters: new Map(),
    timers: new Map(),
    always: new Set(),
  };
  return {
    async start() {
      const open = await state.records.load();
      for (const record of open) {
        if (Date.parse(record.expiresAt) <= now().getTime()) await expire(state, record.id);
        else armExpiry(state, record);
      }
      if (open.length > 0) options.logger.info({ open: open.length }, 'approval requests still open');
    },
    open: () => state.records.open().sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
    recent: (limit) => state.records.closed(limit),
    find: (id) => state.records.byId(id),
    close() {
      for (const timer of state.timers.values()) clearTimeout(timer);
      state.timers.clear();
    },
    check: (call, context) => checkCall(state, call, context),
    decide: (input) => decide(state, input),
    waiting: (sessionKey) =>
      state.records.open().some((record) => record.sessionKey === sessionKey && state.waiters.has(record.id)),
    hold: (command) => hold(state, command),
  };
}

/** Holds an owner's command until that owner confirms it; the reply carries the code and buttons. */
async function hold(state: ApprovalsState, command: HeldCommand): Promise<OutboundMessage> {
  const record = await openRequest(state, {
    kind: 'command',
    tool: /^\/?(\S+)/.exec(command.text)?.[1] ?? 'command',
    agentId: command.agentId,
    sessionKey: command.sessionKey,
    route: command.route,
    requester: command.senderId,
    argumentsHash: argumentsHash(command.text),
    arguments: command.summary,
    details: command.details,
    command: command.text,
    approvers: [command.senderId],
  });
  return requestMessage(record, state.now());
}
