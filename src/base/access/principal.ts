import type { Config } from '../config/index.js';
import { BUILTIN_ROLES, type RoleRules } from './builtin-roles.js';

/** What resolving a principal reads of the config. */
export type AccessConfig = Pick<Config, 'owners' | 'people' | 'roles'>;

/**
 * Who acts: the platform identity a message or request came from, the person it belongs to and
 * that person's role, with the role's rules resolved (so `can` needs nothing else).
 */
export interface Principal {
  /** The identity it came from (`slack:U1`, `webchat:alice`), or `system:signals` for runtime work nobody runs as. */
  senderId: string;
  /** The person (a key of `people`); absent for an identity no person lists. */
  personId?: string;
  /** The role's name: `owner`, `operator`, `member`, `viewer` or a key of `roles`. */
  role: string;
  rules: RoleRules;
}

/**
 * The principal behind an identity: the person listing it (or, given a person id, that person)
 * with their role; else an owner when `owners` lists it; else a `member`. Pure: the same config
 * and identity always give the same principal.
 */
export function resolvePrincipal(config: AccessConfig, identity: string): Principal {
  const found = personOf(config, identity);
  if (found !== undefined) {
    const { personId, role } = found;
    const senderId = identity.includes(':')
      ? identity
      : (config.people[personId]?.identities[0] ?? `person:${personId}`);
    return { senderId, personId, role, rules: roleRules(config, role) };
  }
  const role = config.owners.includes(identity) ? 'owner' : 'member';
  return { senderId: identity, role, rules: roleRules(config, role) };
}

/** Whether the identity (or person id) is an owner's: listed in `owners`, or a person whose role is `owner`. */
export function isOwnerIdentity(config: AccessConfig, identity: string): boolean {
  return resolvePrincipal(config, identity).role === 'owner';
}

/** Every identity of every person with the role; for `owner` also `owners`. */
export function identitiesWithRole(config: AccessConfig, role: string): string[] {
  const listed = Object.values(config.people)
    .filter((person) => person.role === role)
    .flatMap((person) => person.identities);
  return [...new Set([...(role === 'owner' ? config.owners : []), ...listed])];
}

/** The identity itself and, when a person lists it (or it is a person id), every identity of that person. */
export function identitiesOf(config: AccessConfig, identity: string): string[] {
  const { personId } = resolvePrincipal(config, identity);
  const person = personId === undefined ? undefined : config.people[personId];
  return [...new Set([identity, ...(person?.identities ?? [])])];
}

/** How a principal is named in a refusal: `alice (slack:U1, role member)`. */
export function describePrincipal(principal: Principal): string {
  const who =
    principal.personId === undefined ? principal.senderId : `${principal.personId} (${principal.senderId})`;
  return `${who}, role ${principal.role}`;
}

/** The person an identity (or a person id) belongs to, with their role. */
function personOf(config: AccessConfig, identity: string): { personId: string; role: string } | undefined {
  const direct = identity.includes(':') ? undefined : config.people[identity];
  if (direct !== undefined) return { personId: identity, role: direct.role };
  for (const [personId, person] of Object.entries(config.people)) {
    if (person.identities.includes(identity)) return { personId, role: person.role };
  }
  return undefined;
}

/**
 * A role's rules: a built-in role with the config's fields for it put over its own, or a
 * configured role whose absent fields give nothing (and `sees` its own). `owner` is never
 * narrowed; a name that is no role (refused when the config loads) gives nothing at all.
 */
export function roleRules(config: Pick<Config, 'roles'>, name: string): RoleRules {
  const builtin = BUILTIN_ROLES[name];
  if (name === 'owner' && builtin) return builtin;
  const configured = config.roles[name];
  const base: RoleRules = builtin ?? {
    tools: [],
    agents: [],
    commands: [],
    pages: [],
    routes: [],
    sees: 'own',
  };
  if (configured === undefined) return base;
  return { ...base, ...configured } as RoleRules;
}
