import type { FastifyInstance } from 'fastify';
import {
  type AccessPolicy,
  actsAsOwner,
  type Identity,
  identityOf,
  NO_QUERY,
  senderIdOf,
} from '../../http/index.js';
import type { ApprovalView } from '../contracts.js';

/** What a decision through the inbox did: decided (the service's text), or refused and why. */
export type InboxDecision =
  | { ok: true; text: string; approval: ApprovalView }
  | { ok: false; refusal: 'unknown' | 'not_approver' | 'decided'; message: string };

/** What the HTTP layer needs of the approvals service; the gateway passes the real one. */
export interface ApprovalsInbox {
  /** The open requests (oldest first) and the most recently decided ones (newest first). */
  list(): Promise<{ open: ApprovalView[]; decided: ApprovalView[] }>;
  /** Decides request `id` as sender `by`, through the approvals service (approver check, first decision wins). */
  decide(request: { id: string; decision: 'approve' | 'deny'; by: string }): Promise<InboxDecision>;
}

const REFUSAL_STATUS = { unknown: 404, not_approver: 403, decided: 409 } as const;

/** Only approvers and owners (the operator among them) see the inbox: the arguments of other people's calls are in it. */
function mayView(access: AccessPolicy, identity: Identity): boolean {
  return access.isApprover(senderIdOf(identity)) || actsAsOwner(identity, access);
}

const forbidden = (senderId: string) => ({
  error: 'forbidden',
  message: `${senderId} is neither an approver nor an owner (see approvals.approvers and owners in the config)`,
});

/**
 * `GET /api/approvals` and `POST /api/approvals/:id { decision }`: the approvals inbox. A decision
 * is made as the signed-in sender (`webchat:<user>`), so the service's own approver check applies:
 * an owner who is not among a request's approvers is refused (403), as in chat.
 */
export function registerApprovalRoutes(
  app: FastifyInstance,
  options: { inbox: ApprovalsInbox; access: AccessPolicy },
): void {
  const { inbox, access } = options;
  app.get('/api/approvals', { schema: { querystring: NO_QUERY } }, async (request, reply) => {
    const identity = identityOf(request);
    const senderId = senderIdOf(identity);
    if (!mayView(access, identity)) return reply.code(403).send(forbidden(senderId));
    return inbox.list();
  });
  app.post<{ Params: { id: string }; Body: { decision: 'approve' | 'deny' } }>(
    '/api/approvals/:id',
    {
      schema: {
        querystring: NO_QUERY,
        params: {
          type: 'object',
          properties: { id: { type: 'string', pattern: '^ap_[a-z0-9]{1,64}$' } },
          required: ['id'],
        },
        body: {
          type: 'object',
          properties: { decision: { type: 'string', enum: ['approve', 'deny'] } },
          required: ['decision'],
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const identity = identityOf(request);
      const senderId = senderIdOf(identity);
      if (!mayView(access, identity)) return reply.code(403).send(forbidden(senderId));
      const outcome = await inbox.decide({
        id: request.params.id,
        decision: request.body.decision,
        by: senderId,
      });
      if (outcome.ok) return outcome;
      const status = REFUSAL_STATUS[outcome.refusal];
      const error = status === 404 ? 'not_found' : status === 403 ? 'forbidden' : 'conflict';
      return reply.code(status).send({ error, message: outcome.message });
    },
  );
}
