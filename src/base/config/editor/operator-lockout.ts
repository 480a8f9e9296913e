import type { Config } from '../schema/schema.js';

/** The operator: whoever signs in with the HTTP token (`http.token` or `<stateDir>/http-token`). */
export const OPERATOR_ID = 'webchat:local';

/**
 * An edit that takes owner rights from the operator: `owners` named webchat:local before (the
 * defaults do) and does not after. The operator would be refused by the Config page, `/config`
 * and owner-only tools, with nobody left who can put it back from the chat. Undefined when the
 * edit keeps the operator, or when the file had already left it out (not this edit's doing).
 */
export function operatorLockout(previous: Record<string, unknown>, next: Config): string | undefined {
  const before = Array.isArray(previous.owners) ? previous.owners : [OPERATOR_ID];
  if (!before.includes(OPERATOR_ID) || next.owners.includes(OPERATOR_ID)) return undefined;
  return `owners would no longer include ${OPERATOR_ID}, the operator: whoever signs in with the HTTP token (the web chat, the control UI) would lose owner rights, and the Config page and /config would refuse them; nothing was written. Keep "${OPERATOR_ID}" in owners, or, if that is meant, make the edit again saying so: switchboard config patch --allow-operator-lockout, or allowOperatorLockout: true in the control UI's config API.`;
}
