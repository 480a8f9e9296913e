import type { FakeStep } from '../fakes/fake-model-server.js';

/** A signal a wake turn carries: its kind, priority and source, part of its payload, a message body. */
interface Carried {
  kind: string;
  priority?: string;
  source?: string;
  /** How many equal signals were merged into it. */
  merged?: number;
  payload?: Record<string, unknown>;
  body?: RegExp;
}

/**
 * One step of a case: send a message (through the probe toolpack, as a toolpack does), move the
 * clock, expect the agent's next wake turn and what it carries, expect no further wake turn (over
 * three ticks), or expect the state the roster shows the hooks.
 */
export type NudgeStep =
  | { send: { sender: string; recipient: string; body: string; priority?: string } }
  | { advanceMs: number }
  | { restart: true }
  /** `requests`: the model calls of that wake turn (1 unless a tool call's result is answered). */
  | { wake: string; carries: Carried[]; requests?: number; endless?: true }
  | { noWake: string }
  | { state: { agent: string; shows: Record<string, unknown> } };

export interface NudgeCase {
  /** Suzumio's test name, or what it checks. */
  name: string;
  scheduler: Record<string, unknown>;
  /** More `tools.toolpacks` entries (runner fixtures, by path under test/fixtures). */
  toolpacks?: string[];
  /** The model's answers in each agent's wake turns, in order (then a plain text answer). */
  script?: Record<string, FakeStep[]>;
  /** Config `approvals`, for a case whose tool call is denied. */
  approvals?: Record<string, unknown>;
  steps: NudgeStep[];
}

const MINUTE = 60_000;
const SILENT = { text: 'nothing to report' };
const FAIL = (message: string): FakeStep => ({ status: 400, errorMessage: message });
const WAIT: FakeStep = {
  toolCalls: [{ name: 'coordination.wait_for_signal', arguments: { reason: 'the review' } }],
};
const START = { send: { sender: 'pm', recipient: 'worker', body: 'Start the proof pass.', priority: 'P2' } };
const STARTED: NudgeStep = {
  wake: 'worker',
  carries: [{ kind: 'message.created', body: /Start the proof pass/ }],
};
const noEffect = (attempt: number, delayMs: number, priority = 'P2'): NudgeStep => ({
  wake: 'worker',
  carries: [
    { kind: 'scheduler.no_effect_nudge', priority, source: 'scheduler', payload: { attempt, delayMs } },
  ],
});
const failedRetry = (attempt: number, delayMs: number, error: string): NudgeStep => ({
  wake: 'worker',
  carries: [
    {
      kind: 'scheduler.failed_nudge',
      priority: 'P2',
      payload: {
        attempt,
        delayMs,
        maxConsecutive: 2,
        message: 'Retry after failure.',
        error: expectText(error),
      },
    },
  ],
});
/** A payload field that contains the text (matched by the runner's objectContaining). */
function expectText(text: string): unknown {
  return {
    asymmetricMatch: (value: unknown) => String(value).includes(text),
    toString: () => `text with ${text}`,
  };
}

const backoff = { backoffFactor: 2, maxDelayMs: 5000 };

export const NUDGE_CASES: NudgeCase[] = [
  {
    name: 'no-effect nudge honors a configured finite limit',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 2, initialDelayMs: 0, ...backoff },
    },
    steps: [START, STARTED, noEffect(1, 0), noEffect(2, 0), { noWake: 'worker' }],
  },
  {
    name: 'no-effect nudge continues with exponential backoff',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 0, initialDelayMs: 1000, ...backoff },
    },
    steps: [
      START,
      STARTED,
      noEffect(1, 0),
      { noWake: 'worker' },
      { advanceMs: 999 },
      { noWake: 'worker' },
      { advanceMs: 1 },
      noEffect(2, 1000),
      { advanceMs: 1999 },
      { noWake: 'worker' },
      { advanceMs: 1 },
      noEffect(3, 2000),
      { advanceMs: 3999 },
      { noWake: 'worker' },
      { advanceMs: 1 },
      noEffect(4, 4000),
      // 8000 capped at maxDelayMs.
      { advanceMs: 4999 },
      { noWake: 'worker' },
      { advanceMs: 1 },
      noEffect(5, 5000),
    ],
  },
  {
    name: 'a wake turn with a useful effect (coordination.wait_for_signal) is not nudged',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 0, initialDelayMs: 0, ...backoff },
    },
    script: { worker: [WAIT, SILENT] },
    steps: [START, STARTED, { advanceMs: 10 * MINUTE }, { noWake: 'worker' }],
  },
  {
    name: 'Switchboard: a messages.send the approval policy denies is no useful effect (the wake turn is nudged)',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 1, initialDelayMs: 0, ...backoff },
    },
    approvals: { tools: { 'messages.send': 'deny' } },
    script: {
      worker: [
        {
          toolCalls: [
            { name: 'messages.send', arguments: { recipient: 'pm', body: 'done', priority: 'P2' } },
          ],
        },
        SILENT,
      ],
    },
    steps: [
      START,
      { wake: 'worker', carries: [{ kind: 'message.created', body: /Start the proof pass/ }], requests: 2 },
      noEffect(1, 0),
    ],
  },
  {
    name: 'a useful effect ends the run of no-effect nudges: the next one is attempt 1 again',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 2, initialDelayMs: 0, ...backoff },
    },
    script: { worker: [SILENT, SILENT, SILENT, WAIT, SILENT, SILENT] },
    steps: [
      START,
      STARTED,
      noEffect(1, 0),
      noEffect(2, 0),
      { noWake: 'worker' },
      { send: { sender: 'pm', recipient: 'worker', body: 'Next: the review.', priority: 'P2' } },
      { wake: 'worker', carries: [{ kind: 'message.created', body: /Next: the review/ }] },
      { noWake: 'worker' },
      { send: { sender: 'pm', recipient: 'worker', body: 'And the docs.', priority: 'P2' } },
      { wake: 'worker', carries: [{ kind: 'message.created', body: /And the docs/ }] },
      noEffect(1, 0),
    ],
  },
  {
    name: "a runner tool's signal for another agent is a useful effect of the wake turn",
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 1, initialDelayMs: 0, ...backoff },
    },
    toolpacks: ['runner-toolpacks/workbench'],
    script: {
      worker: [
        {
          toolCalls: [
            {
              name: 'workbench.signal',
              arguments: { kind: 'review.ready', targetAgent: 'verifier', priority: 'P3' },
            },
          ],
        },
        SILENT,
      ],
    },
    steps: [
      START,
      { wake: 'worker', carries: [{ kind: 'message.created', body: /Start the proof pass/ }], requests: 2 },
      { wake: 'verifier', carries: [{ kind: 'review.ready', source: 'toolpack:workbench' }] },
      { noWake: 'worker' },
    ],
  },
  {
    name: 'failed nudge creates delayed retry signals with backoff',
    scheduler: {
      failedNudge: {
        enabled: true,
        priority: 'P2',
        maxConsecutive: 2,
        initialDelayMs: 1000,
        ...backoff,
        message: 'Retry after failure.',
      },
    },
    script: { worker: [FAIL('provider timeout'), FAIL('provider timeout again'), FAIL('still down')] },
    steps: [
      START,
      STARTED,
      {
        state: {
          agent: 'worker',
          shows: {
            state: 'failed',
            status: 'idle',
            stateSince: new Date(Date.parse('2030-01-07T08:00:00.000Z')).toISOString(),
          },
        },
      },
      { noWake: 'worker' },
      { advanceMs: 1000 },
      failedRetry(1, 1000, 'provider timeout'),
      { advanceMs: 1999 },
      { noWake: 'worker' },
      { advanceMs: 1 },
      failedRetry(2, 2000, 'provider timeout again'),
      // maxConsecutive 2: no third retry; the agent stays failed.
      { advanceMs: 10 * MINUTE },
      { noWake: 'worker' },
      { state: { agent: 'worker', shows: { state: 'failed' } } },
    ],
  },
  {
    name: 'Switchboard: a wake turn a stop interrupts is not nudged (its signals come again after the restart)',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 1, initialDelayMs: 0, ...backoff },
    },
    script: { worker: [{ hang: true }, SILENT, SILENT] },
    steps: [
      START,
      { wake: 'worker', carries: [{ kind: 'message.created', body: /Start the proof pass/ }], endless: true },
      { restart: true },
      STARTED,
      // One nudge, for the wake turn that ended: none was recorded for the interrupted one.
      {
        wake: 'worker',
        carries: [{ kind: 'scheduler.no_effect_nudge', merged: 0, payload: { attempt: 1 } }],
      },
    ],
  },
  {
    name: 'Switchboard: a failed agent and its delayed retry survive a restart',
    scheduler: {
      failedNudge: {
        enabled: true,
        priority: 'P2',
        maxConsecutive: 2,
        initialDelayMs: 1000,
        ...backoff,
        message: 'Retry after failure.',
      },
    },
    script: { worker: [FAIL('provider timeout'), SILENT] },
    steps: [
      START,
      STARTED,
      { state: { agent: 'worker', shows: { state: 'failed', stateSince: '2030-01-07T08:00:00.000Z' } } },
      { restart: true },
      { state: { agent: 'worker', shows: { state: 'failed', stateSince: '2030-01-07T08:00:00.000Z' } } },
      { advanceMs: 999 },
      { noWake: 'worker' },
      { advanceMs: 1 },
      failedRetry(1, 1000, 'provider timeout'),
      { state: { agent: 'worker', shows: { state: 'quiet' } } },
    ],
  },
  {
    name: 'Switchboard: a delayed no-effect nudge survives a restart',
    scheduler: {
      noEffectNudge: { enabled: true, priority: 'P2', maxConsecutive: 0, initialDelayMs: 1000, ...backoff },
    },
    steps: [
      START,
      STARTED,
      noEffect(1, 0),
      { restart: true },
      { noWake: 'worker' },
      { advanceMs: 1000 },
      noEffect(2, 1000),
    ],
  },
  {
    name: 'all-quiet scheduler nudge creates a pending PM signal (and waits out its cooldown)',
    scheduler: {
      allQuietNudge: {
        enabled: true,
        targetAgent: 'pm',
        priority: 'P2',
        cooldownMs: 300_000,
        message: 'All agents are quiet and no work is pending.',
      },
    },
    steps: [
      {
        wake: 'pm',
        carries: [
          {
            kind: 'scheduler.all_quiet_nudge',
            priority: 'P2',
            payload: {
              message: 'All agents are quiet and no work is pending.',
              reason: 'all agents quiet and no pending signals',
            },
          },
        ],
      },
      { noWake: 'pm' },
      { advanceMs: 299_999 },
      { noWake: 'pm' },
      { advanceMs: 1 },
      { wake: 'pm', carries: [{ kind: 'scheduler.all_quiet_nudge', priority: 'P2' }] },
    ],
  },
  {
    name: 'quiet agent monitor sends PM messages and repeats after interval',
    scheduler: {
      quietAgentMonitor: {
        enabled: true,
        rules: [
          {
            id: 'worker-quiet',
            agent: 'worker',
            recipient: 'pm',
            sender: 'monitor',
            priority: 'P2',
            initialDelayMs: 30 * MINUTE,
            repeatDelayMs: 15 * MINUTE,
            message: '{{agent}} has been quiet for {{quietMinutes}} minutes; attempt {{attempt}}.',
          },
        ],
      },
    },
    steps: [
      { state: { agent: 'worker', shows: { state: 'quiet', stateSince: '2030-01-07T08:00:00.000Z' } } },
      { advanceMs: 29 * MINUTE },
      { noWake: 'pm' },
      { advanceMs: 2 * MINUTE },
      {
        wake: 'pm',
        carries: [
          {
            kind: 'message.created',
            priority: 'P2',
            source: 'message:monitor',
            payload: { sender: 'monitor' },
            body: /^worker has been quiet for 31 minutes; attempt 1\.$/,
          },
        ],
      },
      { advanceMs: 14 * MINUTE },
      { noWake: 'pm' },
      { advanceMs: 2 * MINUTE },
      {
        wake: 'pm',
        carries: [{ kind: 'message.created', body: /^worker has been quiet for 47 minutes; attempt 2\.$/ }],
      },
    ],
  },
  {
    name: 'failed agent monitor sends PM messages and repeats after interval',
    scheduler: {
      failedAgentMonitor: {
        enabled: true,
        rules: [
          {
            id: 'worker-failed',
            agent: 'worker',
            recipient: 'pm',
            sender: 'monitor',
            priority: 'P2',
            initialDelayMs: 30 * MINUTE,
            repeatDelayMs: 15 * MINUTE,
            message:
              '{{agent}} failed for {{failedMinutes}} minutes after {{activationId}}; attempt {{attempt}}; error {{error}}.',
          },
        ],
      },
    },
    script: { worker: [FAIL('model timeout')] },
    steps: [
      START,
      STARTED,
      { state: { agent: 'worker', shows: { state: 'failed' } } },
      { advanceMs: 31 * MINUTE },
      {
        wake: 'pm',
        carries: [
          {
            kind: 'message.created',
            priority: 'P2',
            body: /^worker failed for 31 minutes after \S+; attempt 1; error .*model timeout.*\.$/,
          },
        ],
      },
      { advanceMs: 14 * MINUTE },
      { noWake: 'pm' },
      { advanceMs: 2 * MINUTE },
      {
        wake: 'pm',
        carries: [{ kind: 'message.created', body: /^worker failed for 47 minutes after \S+; attempt 2; / }],
      },
    ],
  },
  {
    name: 'defaults (config-defaults test): noEffectNudge and allQuietNudge at P3, failedNudge at P2',
    scheduler: {
      noEffectNudge: { enabled: true, maxConsecutive: 1 },
      failedNudge: { enabled: true, initialDelayMs: 0 },
      allQuietNudge: { enabled: true, targetAgent: 'verifier' },
    },
    script: { worker: [FAIL('provider down'), SILENT] },
    steps: [
      {
        wake: 'verifier',
        carries: [
          { kind: 'scheduler.all_quiet_nudge', priority: 'P3', payload: { message: expectText('quiet') } },
        ],
      },
      START,
      STARTED,
      {
        wake: 'worker',
        carries: [
          {
            kind: 'scheduler.failed_nudge',
            priority: 'P2',
            payload: { attempt: 1, delayMs: 0, maxConsecutive: 3 },
          },
        ],
      },
      noEffect(1, 0, 'P3'),
      { noWake: 'worker' },
    ],
  },
  {
    name: 'defaults: no nudge and no monitor message unless enabled (Switchboard: noEffectNudge off too)',
    scheduler: {},
    steps: [START, STARTED, { advanceMs: 24 * 60 * MINUTE }, { noWake: 'worker' }, { noWake: 'pm' }],
  },
];
