import { Type } from '@sinclair/typebox';
import { AGENT_EDITABLE_KEYWORD, Strict, StringEnum } from './schema-helpers.js';

/** `log`: the level, and the rotated log file that `switchboard logs` reads (docs/operations.md, "Logs"). */
export const LogSchema = Strict(
  {
    level: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, {
      default: 'info',
      description: 'Minimum log level.',
    }),
    file: Type.Optional(
      Strict(
        {
          path: Type.Optional(
            Type.String({
              minLength: 1,
              description:
                'Base name of the log files, relative to the working directory; the gateway writes `<name>.1.log`, `<name>.2.log`, … beside it. Default: `<stateDir>/logs/switchboard.log`.',
            }),
          ),
          size: Type.String({
            pattern: '^[0-9]+[kmg]$',
            default: '10m',
            description:
              'A file is rotated once it reaches this size: a number and `k`, `m` or `g` (`512k`, `10m`).',
          }),
          frequency: Type.Optional(
            StringEnum(['daily', 'hourly'] as const, {
              description: 'Also rotate at each midnight or hour (local time), whatever the size.',
            }),
          ),
          keep: Type.Integer({
            minimum: 1,
            maximum: 1000,
            default: 10,
            description:
              'How many log files are kept, the current one included; older ones are deleted when a file rotates.',
          }),
        },
        {
          description:
            'Write the log to rotated files (mode 0600, secrets scrubbed) instead of stdout; stdout still gets the lines when it is a terminal. `{}` turns it on with the defaults. Read it with `switchboard logs`.',
        },
      ),
    ),
  },
  // The log file's path decides who can read the log, its level what it keeps: the owner's.
  { default: {}, description: 'Logging.', [AGENT_EDITABLE_KEYWORD]: false },
);
