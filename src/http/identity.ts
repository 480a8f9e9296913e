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

/** Answers 403 naming the sender and returns false unless the request comes from an owner. */
export function requireOwner(request: FastifyRequest, reply: FastifyReply, access: AccessPolicy): boolean {
  const senderId = senderIdOf(identityOf(request));
  if (access.isOwner(senderId)) return true;
  void reply
    .code(403)
    .send({ error: 'forbidden', message: `${senderId} is not an owner (see owners in the config)` });
  return false;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that needs the token. */
    identity?: Identity;
  }
}
