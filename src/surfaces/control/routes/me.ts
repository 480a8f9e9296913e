import type { FastifyInstance } from 'fastify';
import { type AccessPolicy, actsAsOwner, identityOf, NO_QUERY, senderIdOf } from '../../http/index.js';
import type { Me } from '../contracts.js';

export interface MeOptions {
  access: AccessPolicy;
  projectId: string;
  version: string;
  /** The most characters one web chat message may hold (the message route's limit). */
  maxMessageLength: number;
}

/** `GET /api/me`: who the sign-in says this is, and what the control UI should offer them. */
export function registerMeRoute(app: FastifyInstance, options: MeOptions): void {
  app.get('/api/me', { schema: { querystring: NO_QUERY } }, async (request): Promise<Me> => {
    const identity = identityOf(request);
    const senderId = senderIdOf(identity);
    return {
      user: identity.user,
      senderId,
      operator: identity.operator,
      owner: actsAsOwner(identity, options.access),
      approver: options.access.isApprover(senderId),
      projectId: options.projectId,
      version: options.version,
      maxMessageLength: options.maxMessageLength,
    };
  });
}
