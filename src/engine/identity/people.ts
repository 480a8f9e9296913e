import { type AccessConfig, resolvePrincipal } from '../../base/access/index.js';
import { fail, ok, type Result } from '../../base/errors/index.js';

/** `people`, `owners` and `roles` as the config file has them now (what a link or a pairing changes). */
export type PeopleFacts = AccessConfig;

/** A config edit of `people`: the merge patch, the path it replaces whole, and what it did in words. */
export interface PeopleEdit {
  patch: Record<string, unknown>;
  replacePaths: string[];
  personId: string;
  role: string;
  text: string;
}

const PERSON_ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** The config path of a person's identities (quoted: a person id may hold a dot). */
function identitiesPath(personId: string): string {
  return `people[${JSON.stringify(personId)}].identities`;
}

/** The person an identity belongs to (at most one: a link never puts an identity in two). */
function personOf(facts: PeopleFacts, identity: string): string | undefined {
  return resolvePrincipal(facts, identity).personId;
}

/** The role of an identity no person lists: `owner` when `owners` names it, else `member`. */
function unlistedRole(facts: PeopleFacts, identity: string): string {
  return resolvePrincipal(facts, identity).role;
}

/**
 * `a` and `b` as one person: the person one of them is already (the other joins it), else a new
 * person with both and the higher of their roles (`owner` when `owners` names either). Refused
 * when they are two people already, or when joining would take an owner's role away.
 */
export function linkEdit(facts: PeopleFacts, a: string, b: string): Result<PeopleEdit> {
  const personA = personOf(facts, a);
  const personB = personOf(facts, b);
  if (personA !== undefined && personA === personB)
    return fail(`${a} and ${b} are linked already (person ${personA}).`);
  if (personA !== undefined && personB !== undefined)
    return fail(
      `${a} is person ${personA} and ${b} is person ${personB}: an owner removes one of them from its person first (People page), then link again.`,
    );
  const joined = personA ?? personB;
  if (joined !== undefined) {
    const person = facts.people[joined];
    if (person === undefined) return fail(`There is no person ${joined}.`);
    const newcomer = joined === personA ? b : a;
    if (unlistedRole(facts, newcomer) === 'owner' && person.role !== 'owner')
      return fail(
        `${newcomer} is an owner (owners) and person ${joined} has role ${person.role}: linking would take the owner's role away; an owner changes the role first.`,
      );
    const identities = [...person.identities, newcomer];
    return ok({
      patch: { people: { [joined]: { identities } } },
      replacePaths: [identitiesPath(joined)],
      personId: joined,
      role: person.role,
      text: `${newcomer} joins person ${joined} (role ${person.role}), with ${person.identities.join(', ')}`,
    });
  }
  const role = unlistedRole(facts, a) === 'owner' || unlistedRole(facts, b) === 'owner' ? 'owner' : 'member';
  const personId = freePersonId(facts, a);
  return ok({
    patch: { people: { [personId]: { role, identities: [a, b] } } },
    replacePaths: [identitiesPath(personId)],
    personId,
    role,
    text: `${a} and ${b} are person ${personId} (role ${role})`,
  });
}

/** `identity` taken out of its person (the person stays, with what is left). */
export function unlinkEdit(facts: PeopleFacts, personId: string, identity: string): Result<PeopleEdit> {
  const person = facts.people[personId];
  if (person === undefined) return fail(`There is no person ${personId}.`);
  if (!person.identities.includes(identity)) return fail(`Person ${personId} has no identity ${identity}.`);
  const identities = person.identities.filter((candidate) => candidate !== identity);
  return ok({
    patch: { people: { [personId]: { identities } } },
    replacePaths: [identitiesPath(personId)],
    personId,
    role: person.role,
    text: `${identity} removed from person ${personId} (left: ${identities.join(', ') || 'none'})`,
  });
}

/** A paired identity as a new person with `role`; refused when a person lists it already. */
export function pairEdit(facts: PeopleFacts, identity: string, role: string): Result<PeopleEdit> {
  const existing = personOf(facts, identity);
  if (existing !== undefined) return fail(`${identity} is person ${existing} already.`);
  const personId = freePersonId(facts, identity);
  return ok({
    patch: { people: { [personId]: { role, identities: [identity] } } },
    replacePaths: [identitiesPath(personId)],
    personId,
    role,
    text: `${identity} is person ${personId} (role ${role})`,
  });
}

/**
 * A person id for `identity` no person has: `alice` for `webchat:alice`, `slack-u0123` for
 * `slack:U0123`, then `-2`, `-3`… when taken.
 */
export function freePersonId(facts: PeopleFacts, identity: string): string {
  const [platform = '', id = ''] = identity.split(/:(.*)/s);
  const plain = (platform === 'webchat' ? id : `${platform}-${id}`)
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 56);
  const base = PERSON_ID.test(plain) ? plain : 'person';
  if (!Object.hasOwn(facts.people, base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base}-${suffix}`;
    if (!Object.hasOwn(facts.people, candidate)) return candidate;
  }
}
