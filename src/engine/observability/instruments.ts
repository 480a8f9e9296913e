import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Seconds: a command (milliseconds) up to a long agent turn (minutes). */
const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Seconds: a model's first answer is rarely under 100 ms and rarely over two minutes. */
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];
/** Seconds: a message, from a chat command (milliseconds) to a long agent turn (minutes). */
const MESSAGE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * Every metric of a gateway host, on its registry. Labels are bounded by the config (channels,
 * agents, models, tools) or by the code (outcomes, directions, events): never a
 * session key, a user id or a text.
 */
export function createInstruments(registry: Registry) {
  const registers = [registry];
  return {
    ...conversationInstruments(registers),
    ...modelInstruments(registers),
    ...partInstruments(registers),
  };
}

export type Instruments = ReturnType<typeof createInstruments>;

/** Messages and turns. */
function conversationInstruments(registers: Registry[]) {
  return {
    messagesReceived: new Counter({
      name: 'switchboard_messages_received_total',
      help: 'Inbound chat messages taken by the router, by channel.',
      labelNames: ['channel'] as const,
      registers,
    }),
    messagesSent: new Counter({
      name: 'switchboard_messages_sent_total',
      help: 'Messages delivered to a chat (replies, posts, approval requests), by channel.',
      labelNames: ['channel'] as const,
      registers,
    }),
    messageDuration: new Histogram({
      name: 'switchboard_message_duration_seconds',
      help: 'How long an inbound message took from its arrival to its answer (the turn or command that answered it ended), by channel.',
      labelNames: ['channel'] as const,
      buckets: MESSAGE_BUCKETS,
      registers,
    }),
    turns: new Counter({
      name: 'switchboard_turns_total',
      help: 'Agent turns that ended, by agent and outcome (done, error, timeout, killed, interrupted).',
      labelNames: ['agent', 'outcome'] as const,
      registers,
    }),
    turnDuration: new Histogram({
      name: 'switchboard_turn_duration_seconds',
      help: 'How long an agent turn took, by agent.',
      labelNames: ['agent'] as const,
      buckets: TURN_BUCKETS,
      registers,
    }),
    turnsRunning: new Gauge({
      name: 'switchboard_turns_running',
      help: 'Agent turns running now.',
      registers,
    }),
  };
}

/** Model calls, their tokens and cost. */
function modelInstruments(registers: Registry[]) {
  return {
    modelCalls: new Counter({
      name: 'switchboard_model_calls_total',
      help: 'Calls to a configured model, by model and outcome (ok, error, aborted).',
      labelNames: ['model', 'outcome'] as const,
      registers,
    }),
    modelCallDuration: new Histogram({
      name: 'switchboard_model_call_duration_seconds',
      help: 'How long a model call took (the whole answer), by model.',
      labelNames: ['model'] as const,
      buckets: MODEL_BUCKETS,
      registers,
    }),
    tokens: new Counter({
      name: 'switchboard_model_tokens_total',
      help: 'Tokens of model calls, reported or estimated (see switchboard_model_tokens_estimated_total), by model and direction (input, output).',
      labelNames: ['model', 'direction'] as const,
      registers,
    }),
    estimatedTokens: new Counter({
      name: 'switchboard_model_tokens_estimated_total',
      help: 'Of switchboard_model_tokens_total, the tokens estimated (about 4 characters a token) because the server reported no usage, by model and direction.',
      labelNames: ['model', 'direction'] as const,
      registers,
    }),
    cost: new Counter({
      name: 'switchboard_model_cost_total',
      help: 'What the reported tokens cost at models.<name>.price (its currency), by model.',
      labelNames: ['model'] as const,
      registers,
    }),
  };
}

/** Tool calls, approvals, restarts. */
function partInstruments(registers: Registry[]) {
  return {
    toolCalls: new Counter({
      name: 'switchboard_tool_calls_total',
      help: 'Tool calls that ran (after their approval), by tool and outcome (ok, failed, error).',
      labelNames: ['tool', 'outcome'] as const,
      registers,
    }),
    approvals: new Counter({
      name: 'switchboard_approvals_total',
      help: 'Approval events: requested, approved, denied, expired, used, refused.',
      labelNames: ['event'] as const,
      registers,
    }),
    restarts: new Counter({
      name: 'switchboard_restarts_total',
      help: 'In-process restarts that ran (the process keeps running; one the start check refused is not counted).',
      registers,
    }),
  };
}
