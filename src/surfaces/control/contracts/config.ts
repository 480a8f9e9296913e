// The Config page (`/api/config…`). Contracts: see ../contracts.ts.
import { type Static, Type } from '@sinclair/typebox';

// The config page (`/api/config…`).

/** `GET /api/config`: the file redacted and its hash; a file that does not load: its errors and a note. */
export const ConfigFileView = Type.Object({
  path: Type.String(),
  hash: Type.String(),
  config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  valid: Type.Optional(Type.Literal(false)),
  errors: Type.Optional(Type.Array(Type.String())),
  note: Type.Optional(Type.String()),
});
export type ConfigFileView = Static<typeof ConfigFileView>;

export const ConfigHash = Type.String({
  pattern: '^[0-9a-f]{64}$',
  description: 'The hash the edit was made from.',
});
const EditNote = Type.Optional(
  Type.String({ minLength: 1, maxLength: 500, description: 'Why: kept in the audit log and the note.' }),
);

/** `POST /api/config/preview` and `POST /api/config`: an edit (the route validates the body with it). */
export const ConfigEditBody = Type.Object(
  {
    action: Type.Union([Type.Literal('patch'), Type.Literal('apply')], {
      description: '`patch`: a JSON merge patch; `apply`: the whole new config.',
    }),
    raw: Type.String({ minLength: 1, maxLength: 512 * 1024, description: 'JSON or JSONC text.' }),
    baseHash: ConfigHash,
    note: EditNote,
    allowOperatorLockout: Type.Optional(
      Type.Boolean({
        description:
          'The edit leaves webchat:local (the operator, the HTTP token) out of owners on purpose; without it such an edit is refused.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConfigEditBody = Static<typeof ConfigEditBody>;

/** `POST /api/config/history/:number/undo`. */
export const ConfigUndoBody = Type.Object(
  { baseHash: ConfigHash, note: EditNote },
  { additionalProperties: false },
);
export type ConfigUndoBody = Static<typeof ConfigUndoBody>;

/** `POST /api/config/preview`: what the edit would do, checked but not written. */
export const ConfigPreviewView = Type.Union([
  Type.Object({ changed: Type.Literal(false), hash: Type.String() }),
  Type.Object({
    changed: Type.Literal(true),
    previousHash: Type.String(),
    changedPaths: Type.Array(Type.String()),
    removedPaths: Type.Array(Type.String()),
    diff: Type.String(),
  }),
]);
export type ConfigPreviewView = Static<typeof ConfigPreviewView>;

/** What an edit or an undo did: written or not, and the restart it scheduled (or why none). */
export const ConfigEditOutcomeView = Type.Object({
  changed: Type.Boolean(),
  changedPaths: Type.Optional(Type.Array(Type.String())),
  restart: Type.Optional(
    Type.Object({
      status: Type.Optional(Type.Literal('scheduled')),
      delayMs: Type.Optional(Type.Number()),
      scheduled: Type.Optional(Type.Literal(false)),
      reason: Type.Optional(Type.String()),
    }),
  ),
  restartNeeded: Type.Optional(Type.Literal(true)),
});
export type ConfigEditOutcomeView = Static<typeof ConfigEditOutcomeView>;

/** `POST /api/config` and `…/undo`: the outcome, and where the restart note will be. */
export const ConfigEditAnswer = Type.Object({
  outcome: ConfigEditOutcomeView,
  /** The note is a system entry of this session after `since`. */
  note: Type.Object({ sessionKey: Type.String(), since: Type.String() }),
});
export type ConfigEditAnswer = Static<typeof ConfigEditAnswer>;

/** A change the audit log records, numbered by its line (1 is the oldest). */
export const ConfigChange = Type.Object({
  number: Type.Number(),
  ts: Type.String(),
  actor: Type.String(),
  via: Type.Union([Type.Literal('tool'), Type.Literal('command'), Type.Literal('cli')]),
  action: Type.Union([
    Type.Literal('config.patch'),
    Type.Literal('config.apply'),
    Type.Literal('config.undo'),
  ]),
  changedPaths: Type.Array(Type.String()),
  previousHash: Type.String(),
  hash: Type.String(),
  note: Type.Optional(Type.String()),
  /** `config.undo`: the number of the change whose previous text was written back. */
  undoes: Type.Optional(Type.Number()),
});
export type ConfigChange = Static<typeof ConfigChange>;

/** `GET /api/config/history`: oldest first. */
export const ConfigHistoryView = Type.Object({ changes: Type.Array(ConfigChange) });
export type ConfigHistoryView = Static<typeof ConfigHistoryView>;

/** `GET /api/config/history/:number`: the change and its diff ('' when the file after it is gone). */
export const ConfigChangeView = Type.Object({ change: ConfigChange, diff: Type.String() });
export type ConfigChangeView = Static<typeof ConfigChangeView>;
