import { BUILTIN_ROLES } from '../../base/access/index.js';
import type { Config } from '../../base/config/index.js';
import { type IdentityPort, showCode } from '../../engine/identity/index.js';
import type { PeopleView } from './contracts.js';
import type { PeoplePort } from './routes/people.js';

/**
 * The People page over this gateway: `people` of the running config (what is applied; an edit
 * shows after its restart) and the pairing requests waiting; unlinks and pairing decisions go
 * through the identity links' config edits.
 */
export function createPeople(options: {
  config: Pick<Config, 'people' | 'roles'>;
  identity: IdentityPort;
}): PeoplePort {
  const { config, identity } = options;
  return {
    async view(): Promise<PeopleView> {
      const people = Object.entries(config.people).map(([id, person]) => ({
        id,
        role: person.role,
        ...(person.displayName === undefined ? {} : { displayName: person.displayName }),
        identities: [...person.identities],
      }));
      const pairing = (await identity.pendingPairings()).map((request) => ({
        code: showCode(request.code),
        identity: request.identity,
        requestedAt: new Date(request.requestedAt).toISOString(),
        expiresAt: new Date(request.expiresAt).toISOString(),
      }));
      const roles = [...new Set([...Object.keys(BUILTIN_ROLES), ...Object.keys(config.roles)])];
      return { people, pairing, roles };
    },
    unlink: (personId, identityId, by, place) => identity.unlink(personId, identityId, by, place),
    approve: (code, role, by, place) => identity.approvePairing(code, role, by, place),
    deny: (code) => identity.denyPairing(code),
  };
}
