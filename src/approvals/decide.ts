import { fail, ok, type Result } from '../errors/index.js';
import type { DecisionInput, DecisionOutcome, HeldCommand } from '../tools/index.js';
import { type ButtonDecision, hashMatches, parseActionValue } from './action-value.js';
import { decidedText, requestMessage } from './request-message.js';
import { type ApprovalsState, alwaysKey, settle } from './state.js';
import type { ApprovalRecord } from './types.js';

interface Found {
  record: ApprovalRecord;
  decision: ButtonDecision;
  reason?: string;
  /** A click whose arguments hash is not the request's (edited or forged). */
  mismatch?: true;
}

/**
 * A decision, typed or clicked. It counts only from an approver (by platform sender id), for an
 * open request, and for a click only with the arguments hash the request was shown with (an edited
 * or forged value is refused); a second decision is answered with the first. Saved before anyone
 * is told; a confirmed command is marked used in the same write and handed back to run once.
 */
export async function decide(state: ApprovalsState, input: DecisionInput): Promise<DecisionOutcome> {
  const found = await find(state, input);
  if (!found.ok) return refused(state, input, found.error);
  const { record, decision } = found.value;
  if (found.value.mismatch) {
    await state.audit.record('refused', record, { by: input.by, reason: 'arguments hash does not match' });
    return refused(state, input, `this button does not match request ${record.code}'s arguments`, record);
  }
  if (!record.approvers.includes(input.by)) {
    await state.audit.record('refused', record, { by: input.by, reason: 'not an approver' });
    const who = record.kind === 'command' ? record.requester : record.approvers.join(', ');
    return refused(state, input, `only ${who} may decide ${record.code}; you are ${input.by}.`, record);
  }
  if (record.status !== 'pending') return { text: `Already decided. ${decidedText(record)}` };
  const status = apply(state, record, input.by, decision, found.value.reason);
  const confirmed = record.kind === 'command' && status === 'approved';
  if (confirmed) record.status = 'used';
  await state.records.save(record);
  await state.audit.record(status, record, {
    by: input.by,
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.always ? { always: true } : {}),
  });
  settle(state, record);
  let text = decidedText(record);
  if (record.always) {
    state.always.add(alwaysKey(record.agentId, record.tool));
    text += ` ${await rememberAlways(state, record, input.by)}`;
  }
  return confirmed ? { text, confirmed: heldCommand(record) } : { text };
}

/**
 * "Always" written to the config: by the approvals service, or, when the call is itself a config
 * edit (`alwaysInCall`), by that edit, as one change: two writers from one hash would lose one.
 */
function rememberAlways(state: ApprovalsState, record: ApprovalRecord, by: string): Promise<string> {
  const { agentId, tool, sessionKey, route } = record;
  if (record.alwaysInCall) {
    return Promise.resolve(
      `The approved edit writes it to agents.${agentId}.approvals.tools in the config, in the same change.`,
    );
  }
  return state.options.rememberAlways({ agentId, tool, by, sessionKey, route });
}

/**
 * A decision that did not count. Typed, the answer is the reason; clicked on a request still open,
 * the answer carries the request's buttons too: adapters show an answer under the request in place
 * of its buttons, so a bare refusal would take them from the approver.
 */
function refused(
  state: ApprovalsState,
  input: DecisionInput,
  reason: string,
  record?: ApprovalRecord,
): DecisionOutcome {
  const text = `Refused: ${reason}`;
  if (input.kind === 'code' || record?.status !== 'pending') return { text };
  const { actions } = requestMessage(record, state.now());
  return { text, ...(actions ? { actions } : {}) };
}

/** The decision on the record, in memory (synchronously: a second click finds it decided). */
function apply(
  state: ApprovalsState,
  record: ApprovalRecord,
  by: string,
  decision: ButtonDecision,
  reason?: string,
): 'approved' | 'denied' {
  const status = decision === 'deny' ? 'denied' : 'approved';
  record.status = status;
  record.decidedBy = by;
  record.decidedAt = state.now().toISOString();
  if (reason) record.reason = reason;
  if (decision === 'always' && record.kind === 'tool') record.always = true;
  return status;
}

async function find(state: ApprovalsState, input: DecisionInput): Promise<Result<Found>> {
  if (input.kind === 'code') {
    const record = await state.records.byCode(input.code);
    if (!record) return fail(`no approval request has the code ${input.code.trim().toUpperCase()}`);
    const decision = input.decision === 'deny' ? 'deny' : input.decision === 'always' ? 'always' : 'approve';
    return ok({ record, decision, ...(input.reason ? { reason: input.reason } : {}) });
  }
  const parsed = parseActionValue(input.value);
  if (!parsed) return fail('this button is not an approval button of this gateway');
  const record = await state.records.byId(parsed.approvalId);
  if (!record) return fail('this button belongs to a request this gateway does not know');
  const mismatch = !hashMatches(parsed.hash, record.argumentsHash);
  return ok({ record, decision: parsed.decision, ...(mismatch ? { mismatch } : {}) });
}

function heldCommand(record: ApprovalRecord): HeldCommand {
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
