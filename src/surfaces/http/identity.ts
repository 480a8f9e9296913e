import type { FastifyReply, FastifyRequest } from 'fastify';
import { BUILTIN_ROLES, can, type Principal } from '../../base/access/index.js';

/**
 * Who a request comes from, fixed by the token it carries (bearer or sign-in cookie): the web
 * chat user, whose sender id is `webchat:<user>`. The gateway's own token is the operator's key.
 */
export interface Identity {
  user: string;
  /** Signed in with the gateway's token (`http.token` / `<stateDir>/http-token`), not a user's. */
  operator: boolean;
}

/** What the HTTP layer asks of the config about a sender; the gateway answers from `people`, `roles`, `owners` and `approvals`. */
export interface AccessPolicy {
  isOwner(senderId: string): boolean;
  isApprover(senderId: string): boolean;
  /** The sender as a person with a role (`resolvePrincipal`); absent: an owner or a member, by `isOwner`. */
  principal?(senderId: string): Principal;
}

/**
 * Who the request acts as: the gateway token is an owner whatever the config says (it holds the
 * state directory); anyone else is the principal of `webchat:<user>`.
 */
export function principalOf(identity: Identity, access: AccessPolicy): Principal {
  const senderId = senderIdOf(identity);
  if (identity.operator) return { senderId, role: 'owner', rules: BUILTIN_ROLES.owner as Principal['rules'] };
  if (access.principal) return access.principal(senderId);
  const role = access.isOwner(senderId) ? 'owner' : 'member';
  return { senderId, role, rules: BUILTIN_ROLES[role] as Principal['rules'] };
}

export const senderIdOf = (identity: Identity) => `webchat:${identity.user}`;

/** The request's identity; only public routes have none, and reading it there is a bug. */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw new Error(`no identity on ${request.method} ${request.url}: a public route?`);
  return request.identity;
}

/**
 * Whether this identity may do what an owner may over HTTP. The operator token (the gateway's own,
 * `http.token` / `<stateDir>/http-token`) is the operator: owner-equivalent on every route whatever
 * `owners` says, since whoever holds it holds the gateway's state directory. A named user is an
 * owner when `owners` lists `webchat:<name>`. Every route asks this, and only this.
 */
export function actsAsOwner(identity: Identity, access: AccessPolicy): boolean {
  return identity.operator || principalOf(identity, access).role === 'owner';
}

/**
 * Answers 403 and returns false unless the request's role may call its route (`can`; the gateway
 * token always may). The refusal names who, the role and what it lacks, whether or not a person
 * lists the sender (one no person lists has the default role, `member`).
 */
export function requireOwner(request: FastifyRequest, reply: FastifyReply, access: AccessPolicy): boolean {
  const refusal = routeRefusal(request, access);
  if (refusal === undefined) return true;
  void reply.code(403).send({ error: 'forbidden', message: refusal });
  return false;
}

/** Why the request's role may not call its route, or undefined when it may. */
function routeRefusal(request: FastifyRequest, access: AccessPolicy): string | undefined {
  const principal = principalOf(identityOf(request), access);
  const verdict = can(principal, {
    kind: 'route',
    method: request.method,
    url: request.routeOptions.url ?? request.url,
  });
  return verdict.ok ? undefined : verdict.error;
}

/**
 * Refuses (403 naming who, the role and the route it lacks) every route the request's role does
 * not give (`roles.<name>.routes`; a member gets its own web chat, approvals, `/api/me` and posting
 * to its own session, which each check further themselves). Closed by default: a new route is
 * refused to every role that does not name it. Pages, public routes and unknown addresses (404)
 * are left alone, and so is the gateway token: owner-equivalent everywhere (`principalOf`).
 */
export function createOwnerGate(access: AccessPolicy) {
  return async function ownerGate(request: FastifyRequest, reply: FastifyReply) {
    const { identity, routeOptions } = request;
    if (!identity || routeOptions.url === undefined) return;
    if (routeOptions.config.public === true || routeOptions.config.signInPage === true) return;
    const refusal = routeRefusal(request, access);
    if (refusal === undefined) return;
    await reply.code(403).send({ error: 'forbidden', message: refusal });
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that needs the token. */
    identity?: Identity;
  }
}
