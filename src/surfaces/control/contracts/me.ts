// Who is signed in and the pages their role shows (`/api/me`). Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';

/** The control UI's pages (`roles.<name>.pages` names them). */
export const PageName = Type.Union([
  Type.Literal('chat'),
  Type.Literal('sessions'),
  Type.Literal('session'),
  Type.Literal('approvals'),
  Type.Literal('tools'),
  Type.Literal('schedules'),
  Type.Literal('logs'),
  Type.Literal('config'),
  Type.Literal('health'),
  Type.Literal('people'),
  Type.Literal('setup'),
]);
export type PageName = Static<typeof PageName>;

/** `GET /api/me`: who the sign-in is and what the control UI offers them. */
export const Me = Type.Object({
  /** The web chat user: its sender id is `webchat:<user>`. */
  user: Type.String(),
  senderId: Type.String(),
  /** Signed in with the gateway's own token: owner-equivalent on every route. */
  operator: Type.Boolean(),
  /** In `owners` (or the operator): may see every session, the config, health and the tools. */
  owner: Type.Boolean(),
  /** The role (docs/roles.md): `owner`, `operator`, `member`, `viewer` or a configured one. */
  role: Type.String(),
  /** The person (a key of `people`); absent for a sender no person lists. */
  person: Type.Optional(Type.String()),
  /** The control-UI pages the role shows (`roles.<name>.pages`). */
  pages: Type.Array(PageName),
  /** May decide approvals (in `approvals.approvers`, or an owner). */
  approver: Type.Boolean(),
  /** The project id (`project.id`), for the Tools API. */
  projectId: Type.String(),
  version: Type.String(),
  /** The most characters one chat message may hold. */
  maxMessageLength: Type.Number(),
  /** No model answers yet (the default agent has none): an owner's control UI opens on Setup. */
  setupNeeded: Type.Boolean(),
});
export type Me = Static<typeof Me>;
