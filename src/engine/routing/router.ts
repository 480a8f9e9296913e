import { type Config, createSecretScrubber } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import type {
  DispatchOptions,
  DispatchResult,
  InboundMessage,
  OutboundFor,
} from '../../base/messages/index.js';
import type { RuntimeTurnRequest, SessionStore } from '../../records/sessions/index.js';
import type { Store } from '../../records/store/index.js';
import type { TurnRunner } from '../agents/index.js';
import type { ApprovalsPort, GatewayControl, RiskSummary, SubagentsPort } from '../tools/index.js';
import type { UsageLedger } from '../usage/index.js';
import { sessionForMessage } from './bindings.js';
import {
  BUILTIN_COMMANDS,
  type ChatCommand,
  type ModelFailoverView,
  parseCommand,
  RescuePlans,
  type RescuePort,
} from './commands/index.js';
import { createInbox } from './inbox.js';
import { createIntake } from './intake.js';
import { runAction, runCommand } from './run-command.js';
import { startRuntimeTurn } from './runtime-turn.js';
import { createSessionQueues, type QueueStatus, type SessionQueues } from './session-queues.js';
import { TurnSlots } from './turn-slots.js';

export interface RouterOptions {
  config: Config;
  configFile: { path: string | undefined; hash: string };
  sessions: SessionStore;
  /** Where accepted messages wait until they are answered (the `inbox` namespace). */
  store: Store;
  runner: TurnRunner;
  /** Where replies, their deltas and status lines go: each route's `Outbound` (built by channels). */
  outboundFor: OutboundFor;
  logger: Logger;
  /** When the process started, for /status. */
  startedAt: number;
  commands?: readonly ChatCommand[];
  /** Secret values (tokens, keys) that never reach a transcript or a reply. */
  secrets?: readonly string[];
  /** What the owner commands /config and /restart act on. */
  gateway: GatewayControl;
  /** What /subagents and /stop act on. */
  subagents: SubagentsPort;
  /** What /approve, /deny, /confirm and button clicks decide through. */
  approvals?: ApprovalsPort;
  /** What /usage reports from (the usage ledger). */
  usage?: Pick<UsageLedger, 'report'>;
  /** Model cooldowns and the last failover, for /status; absent, it shows neither. */
  failover?: ModelFailoverView;
  /** An agent's risk summary (its tools' classes), for /status; absent, it shows none. */
  riskSummary?(agentId: string): RiskSummary;
  /** `/rescue`'s reach into the host (the gateway's); absent, `/rescue` says it is not available. */
  rescue?: RescuePort;
}

export interface Router {
  /**
   * Routes an inbound message: a chat command is answered at once; anything else is stored in the
   * inbox (durable) and queued, or, while the gateway stops, kept for the next start.
   * `options.accepted` is called once the message is stored (a command: before it runs); the
   * promise resolves when the turn ends.
   */
  dispatch(message: InboundMessage, options?: DispatchOptions): Promise<DispatchResult>;
  /**
   * Starts a turn for the runtime (sub-agent tasks, steering, announcements). Resolves once the
   * entry is queued (it is not kept across a stop: its sender keeps it); `done` resolves when the
   * turn that answers it ends.
   */
  startTurn(request: RuntimeTurnRequest): Promise<{ done: Promise<DispatchResult> }>;
  /** Aborts the session's running turn (status `killed`); false when none runs. */
  stopTurn(sessionKey: string, reason: string): boolean;
  /** Drops the session's queued messages; returns how many. */
  clearQueue(sessionKey: string): number;
  sessionStatus(sessionKey: string): QueueStatus;
  /** Whether any session of the agent has a turn queued or running. */
  agentBusy(agentId: string): boolean;
  /** Messages waiting in the session's queue. */
  sessionDepth(sessionKey: string): number;
  /** Messages waiting in every session's queue. */
  queueDepth(): number;
  /** Queues the messages the last process accepted and did not answer; returns how many. */
  resume(): Promise<number>;
  /** Starts no new turns (messages are kept for the next start) and lets running turns end (see SessionQueues.close). */
  close(timeoutMs: number): Promise<void>;
  /** Takes no more messages at all and waits for those being stored: call before the store closes. */
  seal(): Promise<void>;
}

/** The state the router's parts share (see `createRouter`). */
export interface RouterState {
  options: RouterOptions;
  commands: readonly ChatCommand[];
  owners: ReadonlySet<string>;
  scrub(text: string): string;
  queues: SessionQueues;
  /** Runtime turns are refused: the gateway is stopping. */
  closing: boolean;
  /** `/rescue`'s one pending plan. */
  rescuePlans: RescuePlans;
}

/**
 * The router: a command is answered at once (`run-command.ts`), a user message goes through the
 * intake (inbox, then its session's queue), a runtime turn straight to the queue.
 */
export function createRouter(options: RouterOptions): Router {
  const { config, sessions, logger } = options;
  const scrub = createSecretScrubber(options.secrets ?? []);
  const inbox = createInbox({ store: options.store });
  const queues = createSessionQueues({
    scrub,
    sessions,
    inbox,
    runner: options.runner,
    queueMode: config.session.queueMode,
    slots: new TurnSlots(config.session.maxConcurrentTurns),
    outboundFor: options.outboundFor,
    logger,
  });
  const intake = createIntake({
    config,
    sessions,
    inbox,
    queues,
    scrub,
    outboundFor: options.outboundFor,
    logger,
  });
  const state: RouterState = {
    options,
    commands: options.commands ?? BUILTIN_COMMANDS,
    owners: new Set(config.owners),
    scrub,
    queues,
    closing: false,
    rescuePlans: new RescuePlans(),
  };
  return {
    async dispatch(message, dispatchOptions = {}) {
      const { agentId, sessionKey } = sessionForMessage(config, message);
      if (message.action !== undefined) {
        dispatchOptions.accepted?.();
        return runAction(state, message, sessionKey);
      }
      const parsed = parseCommand(message.text);
      if (!parsed) return intake.accept(message, sessionKey, agentId, dispatchOptions);
      // A command is not stored: it is taken once it runs (a platform that resent it would run it twice).
      dispatchOptions.accepted?.();
      return runCommand(state, message, sessionKey, agentId, parsed);
    },
    startTurn: (request) => startRuntimeTurn(state, request),
    stopTurn: (sessionKey, reason) => queues.stop(sessionKey, reason),
    clearQueue: (sessionKey) => queues.clear(sessionKey),
    sessionStatus: (sessionKey) => queues.status(sessionKey),
    agentBusy: (agentId) => queues.agentBusy(agentId),
    sessionDepth: (sessionKey) => queues.depth(sessionKey),
    queueDepth: () => queues.totalDepth(),
    resume: () => intake.resume(),
    close(timeoutMs) {
      state.closing = true;
      intake.close();
      logger.info({}, 'draining: new messages are kept for the next start');
      const approvals = options.approvals;
      return queues.close(timeoutMs, approvals && ((sessionKey) => approvals.waiting(sessionKey)));
    },
    seal: () => intake.seal(),
  };
}
