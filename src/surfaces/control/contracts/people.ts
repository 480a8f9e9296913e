// The People page. Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';

/** One person of `people`: their role and linked platform identities (the People page). */
export const PersonView = Type.Object({
  id: Type.String(),
  role: Type.String(),
  displayName: Type.Optional(Type.String()),
  identities: Type.Array(Type.String()),
});
export type PersonView = Static<typeof PersonView>;

/** A pairing request waiting for an owner: the code the unknown sender was given, and who they are. */
export const PairingRequestView = Type.Object({
  /** As the sender was shown it (`ABCD-EFGH`). */
  code: Type.String(),
  identity: Type.String(),
  requestedAt: Type.String(),
  expiresAt: Type.String(),
});
export type PairingRequestView = Static<typeof PairingRequestView>;

/** `GET /api/people`: the people of the running config and the pairing requests waiting. */
export const PeopleView = Type.Object({
  people: Type.Array(PersonView),
  pairing: Type.Array(PairingRequestView),
  /** The roles a person may be given: the built-in ones and those `roles` configures. */
  roles: Type.Array(Type.String()),
});
export type PeopleView = Static<typeof PeopleView>;

/** A People page action's answer (an unlink, a pairing decision): what it did, in words. */
export const PeopleActionAnswer = Type.Object({ text: Type.String() });
export type PeopleActionAnswer = Static<typeof PeopleActionAnswer>;
