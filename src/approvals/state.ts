import type { ApprovalRecords } from './approval-records.js';
import type { ApprovalAudit } from './audit.js';
import { decidedText, shorten } from './request-message.js';
import type { ApprovalRecord, ApprovalsOptions } from './types.js';

/** What the gate, the decisions and the timers share. */
export interface ApprovalsState {
  options: ApprovalsOptions;
  records: ApprovalRecords;
  audit: ApprovalAudit;
  now: () => Date;
  /** The calls waiting on each request, by request id: told its record once it is decided. */
  waiters: Map<string, Set<(record: ApprovalRecord) => void>>;
  /** Each open request's expiry. */
  timers: Map<string, NodeJS.Timeout>;
  /** "Always" decided in this process (`alwaysKey`): not asked again before the config says so. */
  always: Set<string>;
}

export const alwaysKey = (agentId: string, tool: string) => `${agentId}\u0000${tool}`;

/** A request was decided (or expired) and saved: its waiting calls go on, its timer ends. */
export function settle(state: ApprovalsState, record: ApprovalRecord): void {
  clearTimeout(state.timers.get(record.id));
  state.timers.delete(record.id);
  const waiting = state.waiters.get(record.id);
  state.waiters.delete(record.id);
  for (const waiter of waiting ?? []) waiter(record);
}

/** Ends the request when its time is up: a denial. Unref'd: a pending request keeps no process alive. */
export function armExpiry(state: ApprovalsState, record: ApprovalRecord): void {
  const delay = Math.max(0, Date.parse(record.expiresAt) - state.now().getTime());
  const timer = setTimeout(() => void expire(state, record.id), Math.min(delay, 2 ** 31 - 1));
  timer.unref();
  state.timers.set(record.id, timer);
}

/** An open request whose time is up: `expired` (approved and never used ones too). */
export async function expire(state: ApprovalsState, id: string): Promise<void> {
  const record = state.records.open().find((candidate) => candidate.id === id);
  if (!record) return;
  if (Date.parse(record.expiresAt) > state.now().getTime()) {
    armExpiry(state, record);
    return;
  }
  record.status = 'expired';
  record.decidedBy = 'timeout';
  record.decidedAt = state.now().toISOString();
  record.reason = `no decision within ${state.options.config.approvals.timeoutSeconds} s`;
  await state.records.save(record);
  await state.audit.record('expired', record, { reason: record.reason });
  settle(state, record);
  await tellExpired(state, record);
}

async function tellExpired(state: ApprovalsState, record: ApprovalRecord): Promise<void> {
  if (record.route.channel === 'internal') return;
  const message = { id: `approval-${record.id}-expired`, text: decidedText(record) };
  await state.options
    .outboundFor(record.route)
    .reply(message)
    .catch((error: unknown) => {
      state.options.logger.warn({ err: error, approval: record.id }, 'approval expiry not posted');
    });
}

/** What differs between a tool call's request and a held command's; the rest is filled in here. */
export type RequestFields = Omit<
  ApprovalRecord,
  'id' | 'code' | 'arguments' | 'details' | 'createdAt' | 'expiresAt' | 'status'
> & { arguments: string; details?: string | undefined };

/**
 * A new open request, durable and audited before anyone sees it, its expiry armed. Arguments and
 * details pass `scrub` and are cut for display.
 */
export async function openRequest(state: ApprovalsState, fields: RequestFields): Promise<ApprovalRecord> {
  const { config, scrub } = state.options;
  const now = state.now();
  const { details, ...rest } = fields;
  const record: ApprovalRecord = {
    ...rest,
    id: state.records.newId(),
    code: state.records.newCode(),
    arguments: shorten(scrub(fields.arguments)),
    ...(details ? { details: shorten(scrub(details), 6000) } : {}),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + config.approvals.timeoutSeconds * 1000).toISOString(),
    status: 'pending',
  };
  await state.records.save(record);
  await state.audit.record('requested', record);
  armExpiry(state, record);
  return record;
}
