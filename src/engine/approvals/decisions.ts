import { fail, ok, type Result } from '../../base/errors/index.js';
import type { DecisionInput, DecisionOutcome, HeldCommand } from '../tools/index.js';
import { type ButtonDecision, hashMatches, parseActionValue } from './action-value.js';
import type { ApprovalRecords } from './approval-records.js';
import { requestMessage } from './request-message.js';
import type { ApprovalRecord } from './types.js';

/** The request a decision names, and what it decides. */
export interface FoundDecision {
  record: ApprovalRecord;
  decision: ButtonDecision;
  reason?: string;
  /** A click whose arguments hash is not the request's (edited or forged). */
  mismatch?: true;
}

/** The request a typed code or a clicked button names, or why there is none. */
export async function findDecision(
  records: Pick<ApprovalRecords, 'byCode' | 'byId'>,
  input: DecisionInput,
): Promise<Result<FoundDecision>> {
  if (input.kind === 'code') {
    const record = await records.byCode(input.code);
    if (!record) return fail(`no approval request has the code ${input.code.trim().toUpperCase()}`);
    const decision = input.decision === 'deny' ? 'deny' : input.decision === 'always' ? 'always' : 'approve';
    return ok({ record, decision, ...(input.reason ? { reason: input.reason } : {}) });
  }
  const parsed = parseActionValue(input.value);
  if (!parsed) return fail('this button is not an approval button of this gateway');
  const record = await records.byId(parsed.approvalId);
  if (!record) return fail('this button belongs to a request this gateway does not know');
  const mismatch = !hashMatches(parsed.hash, record.argumentsHash);
  return ok({ record, decision: parsed.decision, ...(mismatch ? { mismatch } : {}) });
}

/** The decision on the record, in memory (synchronously: a second click finds it decided). */
export function applyDecision(
  record: ApprovalRecord,
  by: string,
  decision: ButtonDecision,
  now: Date,
  reason?: string,
): 'approved' | 'denied' {
  const status = decision === 'deny' ? 'denied' : 'approved';
  record.status = status;
  record.decidedBy = by;
  record.decidedAt = now.toISOString();
  if (reason) record.reason = reason;
  if (decision === 'always' && record.kind === 'tool') record.always = true;
  return status;
}

/**
 * A decision that did not count. Typed, the answer is the reason; clicked on a request still open,
 * the answer carries the request's buttons too: adapters show an answer under the request in place
 * of its buttons, so a bare refusal would take them from the approver.
 */
export function refusedOutcome(
  input: DecisionInput,
  reason: string,
  now: Date,
  record?: ApprovalRecord,
): DecisionOutcome {
  const text = `Refused: ${reason}`;
  if (input.kind === 'code' || record?.status !== 'pending') return { text };
  const { actions } = requestMessage(record, now);
  return { text, ...(actions ? { actions } : {}) };
}

/** A confirmed command, handed back to run once. */
export function heldCommand(record: ApprovalRecord): HeldCommand {
  return {
    text: record.command ?? '',
    senderId: record.requester,
    sessionKey: record.sessionKey,
    agentId: record.agentId,
    route: record.route,
    summary: record.arguments,
    ...(record.details ? { details: record.details } : {}),
  };
}
