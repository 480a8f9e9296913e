import { Type } from '@sinclair/typebox';
import { AGENT_EDITABLE_KEYWORD, AGENT_ID_PATTERN, Strict, StringEnum } from './schema-helpers.js';

/**
 * `scheduler` and `communication`: the tick, the packaged scheduler's time zone, and Suzumio's
 * scheduler and communication keys with the defaults of Suzumio's docs (docs/configuration.md),
 * except where docs/toolpacks.md, "Suzumio keys", says why Switchboard differs.
 */

const PRIORITY_VALUES = ['P0', 'P1', 'P2', 'P3'] as const;

const priority = (fallback: (typeof PRIORITY_VALUES)[number], description: string) =>
  StringEnum(PRIORITY_VALUES, { default: fallback, description });

const delay = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 2_592_000_000, default: fallback, description });

/** The backoff of a nudge: the first after `initialDelayMs`, each later one `backoffFactor` times longer, up to `maxDelayMs`. */
const backoff = (defaults: { initial: number; max: number; consecutive: number }) => ({
  maxConsecutive: Type.Integer({
    minimum: 0,
    default: defaults.consecutive,
    description: 'Nudges in a row before it stops (until the agent has an effect again); 0: no limit.',
  }),
  initialDelayMs: delay(defaults.initial, 'Delay before the first nudge (ms).'),
  backoffFactor: Type.Number({
    minimum: 1,
    maximum: 100,
    default: 2,
    description: 'Each nudge in a row waits this many times longer than the one before.',
  }),
  maxDelayMs: delay(defaults.max, 'The longest delay between nudges (ms).'),
});

const template = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 4000, description }));

const MonitorRule = (watched: string, placeholders: string) =>
  Strict({
    id: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$',
        description: 'Stable rule key (default: derived from its index, agent, sender and recipient).',
      }),
    ),
    enabled: Type.Boolean({ default: true, description: 'Whether this rule runs.' }),
    agent: Type.String({
      pattern: AGENT_ID_PATTERN,
      description: `The agent watched while it is ${watched}.`,
    }),
    recipient: Type.String({
      minLength: 1,
      default: 'pm',
      description: 'Who gets the message: an agent id or `user`.',
    }),
    sender: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'monitor',
      description: 'The virtual sender the message shows (no agent is created).',
    }),
    priority: priority('P2', 'Priority of the message.'),
    initialDelayMs: delay(1_800_000, `How long the agent is ${watched} before the first message (ms).`),
    repeatDelayMs: delay(900_000, `Repeat interval while the agent stays ${watched} (ms).`),
    message: template(`The message, a template: ${placeholders}.`),
  });

const COMMON_PLACEHOLDERS =
  '`{{project}}`, `{{agent}}`, `{{recipient}}`, `{{sender}}`, `{{now}}`, `{{attempt}}`, `{{initialDelayMs}}`, `{{repeatDelayMs}}`, `{{ruleId}}`';

export const SchedulerSchema = Strict(
  {
    tickMs: Type.Integer({
      minimum: 50,
      maximum: 3600000,
      default: 1000,
      description: 'How often pending signals are delivered and toolpack scheduler hooks run.',
    }),
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'UTC',
      description:
        'IANA time zone (e.g. `Europe/Berlin`) of cron and weekly jobs that name none; default UTC.',
    }),
    kind: StringEnum(['nonpreemptive-signals', 'nonpreemptive-mailbox'] as const, {
      default: 'nonpreemptive-signals',
      description: "Suzumio's scheduler kind; `nonpreemptive-mailbox` is an alias. Switchboard has one.",
    }),
    maxSignalsPerActivation: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 20,
      description: 'The most pending signals one wake-up delivers.',
    }),
    noEffectNudge: Strict(
      {
        enabled: Type.Boolean({
          default: false,
          description:
            'Nudge an agent whose wake-up ended with no useful effect (no message, signal, submission or wait). Off by default in Switchboard.',
        }),
        priority: priority('P3', 'Priority of the nudge signal.'),
        ...backoff({ initial: 30_000, max: 300_000, consecutive: 0 }),
      },
      { default: {}, description: 'Follow-up after a wake-up with no useful effect.' },
    ),
    failedNudge: Strict(
      {
        enabled: Type.Boolean({
          default: false,
          description: 'Retry an agent whose turn failed and that has no pending signal.',
        }),
        priority: priority('P2', 'Priority of the retry signal.'),
        ...backoff({ initial: 60_000, max: 900_000, consecutive: 3 }),
        message: template("The retry signal's text (a built-in text by default)."),
      },
      { default: {}, description: 'A delayed retry of a failed agent.' },
    ),
    allQuietNudge: Strict(
      {
        enabled: Type.Boolean({
          default: false,
          description: 'Signal `targetAgent` when every agent is quiet and no signal is pending.',
        }),
        targetAgent: Type.String({
          pattern: AGENT_ID_PATTERN,
          default: 'pm',
          description: 'The agent nudged.',
        }),
        priority: priority('P3', 'Priority of the nudge signal.'),
        cooldownMs: Type.Integer({
          minimum: 1,
          maximum: 2_592_000_000,
          default: 300_000,
          description: 'The least time between two all-quiet nudges (ms).',
        }),
        message: template("The nudge's text (a built-in text by default)."),
      },
      { default: {}, description: 'A nudge when the whole project is quiet.' },
    ),
    quietAgentMonitor: Strict(
      {
        enabled: Type.Boolean({ default: false, description: 'Whether the quiet-agent rules run.' }),
        rules: Type.Array(
          MonitorRule(
            'quiet',
            `${COMMON_PLACEHOLDERS}, \`{{quietMs}}\`, \`{{quietMinutes}}\`, \`{{quietSince}}\``,
          ),
          { default: [], description: 'Quiet-agent monitor rules.' },
        ),
      },
      { default: {}, description: 'Messages about agents that stay quiet.' },
    ),
    failedAgentMonitor: Strict(
      {
        enabled: Type.Boolean({ default: false, description: 'Whether the failed-agent rules run.' }),
        rules: Type.Array(
          MonitorRule(
            'failed',
            `${COMMON_PLACEHOLDERS}, \`{{failedMs}}\`, \`{{failedMinutes}}\`, \`{{failedSince}}\`, \`{{activationId}}\`, \`{{error}}\``,
          ),
          { default: [], description: 'Failed-agent monitor rules.' },
        ),
      },
      { default: {}, description: 'Messages about agents that stay failed.' },
    ),
  },
  {
    default: {},
    description: 'The scheduler tick, time zone, nudges and monitors.',
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);

export const CommunicationSchema = Strict(
  {
    coordinatorAgent: Type.Optional(
      Type.String({
        pattern: AGENT_ID_PATTERN,
        description:
          'The agent toolpacks address by default, and whose latest chat gets messages for `user` (the human); default `defaultAgent`.',
      }),
    ),
    restrictNonCoordinatorToCoordinator: Type.Boolean({
      default: false,
      description:
        'Agents other than the coordinator may message only the coordinator (no other agent, `user` or route), at most `nonCoordinatorMaxPriority`.',
    }),
    nonCoordinatorMaxPriority: priority(
      'P2',
      'The most urgent priority a non-coordinator may send with while the restriction is on.',
    ),
    pmRoutineVerifierPriority: priority(
      'P3',
      'The priority the coordinator is told to use for routine review and delegation messages.',
    ),
  },
  {
    default: {},
    description: "How agents address each other (Suzumio's communication policy).",
    [AGENT_EDITABLE_KEYWORD]: false,
  },
);
