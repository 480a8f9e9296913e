import { Type } from '@sinclair/typebox';
import { AGENT_EDITABLE_KEYWORD, Strict, TOOL_PROTECTED_KEYWORD } from './schema-helpers.js';

/**
 * `update`: where `update.check` / `update.run` take a new version from and how long a new version
 * is watched (docs/updating.md). The source is config, never a tool argument, and the `gateway`
 * tool may not change any of it: an update runs code on this machine.
 */
export const UpdateSchema = Strict(
  {
    source: Strict(
      {
        git: Type.Optional(
          Strict(
            {
              remote: Type.Optional(
                Type.String({
                  minLength: 1,
                  description:
                    "The git remote (a name of the checkout's remotes, or a URL) to fetch from; default: the checkout's upstream remote.",
                }),
              ),
              branch: Type.Optional(
                Type.String({
                  minLength: 1,
                  pattern: '^[A-Za-z0-9._/-]+$',
                  description:
                    "The branch of that remote to update to; default: the checkout's upstream branch.",
                }),
              ),
            },
            {
              description: 'Update from a git remote and branch into this checkout (the only source so far).',
            },
          ),
        ),
      },
      { default: {}, description: 'Where updates come from: today a git checkout and its remote.' },
    ),
    watchMs: Type.Integer({
      minimum: 1000,
      maximum: 3600000,
      default: 60000,
      description:
        'After the switch, how long the new version must stay ready on /readyz (reporting its version) before the update counts as done; otherwise it is rolled back.',
    }),
    startTimeoutMs: Type.Integer({
      minimum: 1000,
      maximum: 600000,
      default: 90000,
      description: 'How long the canary, the new version and a rolled-back version each get to become ready.',
    }),
    keepMs: Type.Integer({
      minimum: 0,
      maximum: 2592000000,
      default: 86400000,
      description:
        'How long the previous version (its build and the checkpoint of state and config) is kept after an update succeeded, for a rollback by hand (docs/updating.md).',
    }),
  },
  {
    default: {},
    description:
      'Updating the gateway from chat or the shell: source, watch window, what is kept (docs/updating.md).',
    [TOOL_PROTECTED_KEYWORD]: true,
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);
