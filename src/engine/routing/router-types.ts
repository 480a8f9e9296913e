import type { Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import type {
  DispatchOptions,
  DispatchResult,
  InboundMessage,
  OutboundFor,
} from '../../base/messages/index.js';
import type { QueueStatus, RuntimeTurnRequest, SessionStore } from '../../records/sessions/index.js';
import type { Store } from '../../records/store/index.js';
import type { TurnRunner } from '../agents/index.js';
import type { IdentityPort } from '../identity/index.js';
import type { ApprovalsPort, GatewayControl, RiskSummary, SubagentsPort } from '../tools/index.js';
import type { UsageLedger } from '../usage/index.js';
import type { ChatCommand, ModelFailoverView, RescuePort } from './commands/index.js';

/** The router's options and the `Router` its neighbours use: what the command runner reads of them too. */
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
  /** Identity links (`/link`) and pairing (`/pair`, unknown senders' direct messages); absent, neither is offered. */
  identity?: IdentityPort;
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
