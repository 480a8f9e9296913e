import type { FastifyInstance } from 'fastify';
import { can } from '../../../base/access/index.js';
import {
  type AccessPolicy,
  actsAsOwner,
  identityOf,
  NO_QUERY,
  principalOf,
  senderIdOf,
} from '../../http/index.js';
import { type Me, PageName } from '../contracts.js';

/** The control UI's pages (the contract's), each shown when the role's `pages` give it. */
const PAGES: readonly PageName[] = PageName.anyOf.map((page) => page.const);

export interface MeOptions {
  access: AccessPolicy;
  projectId: string;
  version: string;
  /** The most characters one web chat message may hold (the message route's limit). */
  maxMessageLength: number;
  /** No model answers yet (the default agent has none). */
  setupNeeded: boolean;
}

/** `GET /api/me`: who the sign-in says this is, and what the control UI should offer them. */
export function registerMeRoute(app: FastifyInstance, options: MeOptions): void {
  app.get('/api/me', { schema: { querystring: NO_QUERY } }, async (request): Promise<Me> => {
    const identity = identityOf(request);
    const senderId = senderIdOf(identity);
    const principal = principalOf(identity, options.access);
    return {
      user: identity.user,
      senderId,
      operator: identity.operator,
      owner: actsAsOwner(identity, options.access),
      role: principal.role,
      ...(principal.personId === undefined ? {} : { person: principal.personId }),
      pages: PAGES.filter((page) => can(principal, { kind: 'page', name: page }).ok),
      approver: options.access.isApprover(senderId),
      projectId: options.projectId,
      version: options.version,
      maxMessageLength: options.maxMessageLength,
      setupNeeded: options.setupNeeded,
    };
  });
}
