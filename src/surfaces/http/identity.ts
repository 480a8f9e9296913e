import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Who a request comes from, fixed by the token it carries (bearer or sign-in cookie): the web
 * chat user, whose sender id is `webchat:<user>`. The gateway's own token is the operator's key.
 */
export interface Identity {
  user: string;
  /** Signed in with the gateway's token (`http.token` / `<stateDir>/http-token`), not a user's. */
  operator: boolean;
}

/** What the HTTP layer asks of the config about a sender; the gateway answers from `owners` and `approvals`. */
export interface AccessPolicy {
  isOwner(senderId: string): boolean;
  isApprover(senderId: string): boolean;
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
  return identity.operator || access.isOwner(senderIdOf(identity));
}

/** Answers 403 naming the sender and returns false unless the request comes from an owner (or the operator). */
export function requireOwner(request: FastifyRequest, reply: FastifyReply, access: AccessPolicy): boolean {
  const identity = identityOf(request);
  if (actsAsOwner(identity, access)) return true;
  const senderId = senderIdOf(identity);
  void reply
    .code(403)
    .send({ error: 'forbidden', message: `${senderId} is not an owner (see owners in the config)` });
  return false;
}

/**
 * The routes a named user who is not an owner may call, as `METHOD /route/pattern`: each checks
 * further itself (the web chat and its history are the user's own; approvals are decided by
 * approvers; a session's messages go to the user's own web chat session). Everything else is for
 * owners: closed by default, so a new route is refused to such users until it is opened here.
 */
const OPEN_TO_USERS: readonly RegExp[] = [
  /^GET \/api\/me$/,
  /^(GET|POST) \/api\/webchat\//,
  /^(GET|POST) \/api\/approvals(\/|$)/,
  /^POST \/api\/sessions\/:key\/messages$/,
];

/**
 * Refuses (403 naming the sender and the route) a named user who is not an owner on every route
 * not in OPEN_TO_USERS. Pages, public routes and unknown addresses (404) are left alone, and so is
 * the gateway token: it is the operator, owner-equivalent everywhere (`actsAsOwner`).
 */
export function createOwnerGate(access: AccessPolicy) {
  return async function ownerGate(request: FastifyRequest, reply: FastifyReply) {
    const { identity, routeOptions } = request;
    if (!identity || routeOptions.url === undefined) return;
    if (routeOptions.config.public === true || routeOptions.config.signInPage === true) return;
    const senderId = senderIdOf(identity);
    const route = `${request.method} ${routeOptions.url}`;
    if (OPEN_TO_USERS.some((open) => open.test(route)) || actsAsOwner(identity, access)) return;
    await reply.code(403).send({
      error: 'forbidden',
      message: `${senderId} is not an owner (see owners in the config), and ${route} is for owners`,
    });
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that needs the token. */
    identity?: Identity;
  }
}
