import { randomUUID } from 'node:crypto';
import { type ApprovalRecord, type Approvals, actionValue } from '../../engine/approvals/index.js';
import type { Router } from '../../engine/routing/index.js';
import type { ApprovalView } from './contracts.js';
import type { ApprovalsInbox } from './routes/approvals.js';

/** How many decided requests the inbox lists. */
const RECENT_DECIDED = 50;

/** The record as the inbox shows it: no route (the chat it was posted in is the session's). */
function viewOf(record: ApprovalRecord): ApprovalView {
  const { route: _route, argumentsHash: _hash, command: _command, always: _always, ...shown } = record;
  return shown;
}

/**
 * The approvals inbox of the control UI over the approvals service. A decision is a click on the
 * request's own button, through the router as a chat click is (`runAction`): the service checks
 * the approver, and a held command it confirms runs once, in the chat it was typed in. The
 * refusals are checked first so the API can answer 404/403/409; a decision that loses a race to
 * another answers the service's own words as 409.
 */
export function createApprovalsInbox(options: {
  approvals: () => Approvals | undefined;
  router: Pick<Router, 'dispatch'>;
}): ApprovalsInbox {
  return {
    async list() {
      const approvals = options.approvals();
      if (!approvals) return { open: [], decided: [] };
      const open = approvals.open();
      const decided = [
        ...open.filter((record) => record.status !== 'pending'),
        ...(await approvals.recent(RECENT_DECIDED)),
      ];
      decided.sort((a, b) => (b.decidedAt ?? b.createdAt).localeCompare(a.decidedAt ?? a.createdAt));
      return {
        open: open.filter((record) => record.status === 'pending').map(viewOf),
        decided: decided.map(viewOf),
      };
    },
    async decide({ id, decision, by }) {
      const record = await options.approvals()?.find(id);
      if (!record) return { ok: false, refusal: 'unknown', message: `no approval request has the id ${id}` };
      if (record.madeBy?.includes(by)) {
        const message = `${by} made this call, and with separation of duties (approvals.separateDuties) another approver must decide ${record.code}`;
        return { ok: false, refusal: 'not_approver', message };
      }
      if (!record.approvers.includes(by)) {
        const who = record.approvers.join(', ');
        return {
          ok: false,
          refusal: 'not_approver',
          message: `only ${who} may decide ${record.code}; you are ${by}`,
        };
      }
      if (record.status !== 'pending') {
        const decider = record.decidedBy ? ` by ${record.decidedBy}` : '';
        return {
          ok: false,
          refusal: 'decided',
          message: `${record.code} is already ${record.status}${decider}`,
        };
      }
      const result = await options.router.dispatch({
        channel: 'webchat',
        chatType: 'direct',
        chatId: by.replace(/^webchat:/, ''),
        senderId: by,
        text: '',
        messageId: randomUUID(),
        action: actionValue(record.id, decision, record.argumentsHash),
      });
      const text = result.replies.map((reply) => reply.text).join('\n');
      const after = (await options.approvals()?.find(id)) ?? record;
      // Lost a race (another decision or the expiry came first; the service answers "Already
      // decided" or "Refused: …", decide.ts): its words, as a conflict.
      const lost = after.decidedBy !== by || /^(Already decided|Refused:)/.test(text);
      if (lost) return { ok: false, refusal: 'decided', message: text };
      return { ok: true, text, approval: viewOf(after) };
    },
  };
}
