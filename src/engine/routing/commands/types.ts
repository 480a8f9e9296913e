import type { Principal } from '../../../base/access/index.js';
import type { Config } from '../../../base/config/index.js';
import type { Result } from '../../../base/errors/index.js';
import type {
  DeliveryRoute,
  InboundMessage,
  NativeCommand,
  OutboundMessage,
} from '../../../base/messages/index.js';
import type { SessionStore } from '../../../records/sessions/index.js';
import type { CompactResult, FailoverState } from '../../agents/index.js';
import type { IdentityPort } from '../../identity/index.js';
import type {
  ApprovalsPort,
  GatewayControl,
  HeldCommand,
  RiskSummary,
  SubagentsPort,
} from '../../tools/index.js';
import type { UsageLedger } from '../../usage/index.js';
import type { SessionQueues } from '../session-queues.js';
import type { RescuePlans } from './rescue-plans.js';

/** What a chat command may read and do. */
export interface CommandContext {
  /** Text after the command name, trimmed. */
  args: string;
  message: InboundMessage;
  sessionKey: string;
  /** Where the command's message came from (its session may have no record: commands create none). */
  route: DeliveryRoute;
  agentId: string;
  /** The sender as a person with a role (docs/roles.md); an owner's role is `owner`. */
  principal: Principal;
  config: Config;
  configFile: { path: string | undefined; hash: string };
  uptimeMs: number;
  queues: Pick<SessionQueues, 'depth' | 'status' | 'stop'>;
  sessions: SessionStore;
  commands: readonly ChatCommand[];
  /** Owner commands (/config, /restart) act through it. */
  gateway: GatewayControl;
  /** /subagents lists, kills and steers this session's children through it. */
  subagents: SubagentsPort;
  /** /approve, /deny and /confirm decide through it; /config holds risky edits with it. */
  approvals: ApprovalsPort;
  /** What /usage reports from; absent when the gateway records no usage. */
  usage?: Pick<UsageLedger, 'report'>;
  /** /status shows the last model failover and the models cooling down. */
  failover?: ModelFailoverView;
  /** /status shows the agent's risk summary (the union of its tools' risk classes). */
  riskSummary?(agentId: string): RiskSummary;
  /**
   * The owner confirmed this command (`/confirm <code>` or its button): it runs without asking
   * again. Never set for a command as typed.
   */
  confirmed?: boolean;
  /** /compact: summarizes this session's older entries now, by its agent's model. */
  compact(): Promise<CompactResult>;
  /** Runs a held command its owner just confirmed, once, as they typed it; its answer's text. */
  runConfirmed(command: HeldCommand): Promise<string>;
  /** `/rescue`'s reach into the host; absent, `/rescue` says it is not available here. */
  rescue?: RescuePort;
  /** `/rescue`'s pending plan (one at a time, the router's). */
  rescuePlans: RescuePlans;
  /** `/link` and `/pair` act through it; absent, they say links and pairing are not set up here. */
  identity?: IdentityPort;
}

/** What `/rescue status` reports (issue 32 §3), read without a model. */
export interface RescueStatus {
  /** Safe mode's reason, when the gateway runs in it. */
  safeMode?: { reason: string; since: string };
  /** The recent unclean starts, each in words (when, how far it got, why when known). */
  uncleanStarts: string[];
  /** The config file's hash now. */
  fileHash: string;
  /** The last config that reached ready: its hash, or undefined when none is kept. */
  lastGoodHash: string | undefined;
}

/** One audited `/rescue` step: who, what, and the config file's hash before and after. */
export interface RescueAuditStep {
  actor: string;
  action: string;
  hashBefore: string;
  hashAfter: string;
  outcome: string;
}

/** The host's side of `/rescue`: the start record, the last config that reached ready, safe mode. */
export interface RescuePort {
  status(): Promise<RescueStatus>;
  /** The text of the last config that reached ready, or why there is none. */
  lastGood(): Promise<Result<{ text: string; hash: string }>>;
  /** The redacted diff from the last config that reached ready to the file now ('' when equal). */
  diffLastGood(): Promise<Result<string>>;
  /** Leaves safe mode: the breaker's count is cleared; the next start (the command restarts) is normal. */
  leaveSafeMode(request: { actor: string }): Promise<Result<string>>;
  /** Appends a step to `<stateDir>/rescue-audit.jsonl`. */
  audit(step: RescueAuditStep): Promise<void>;
}

/** What /status reads of the gateway's model failover state. */
export type ModelFailoverView = Pick<FailoverState, 'now' | 'cooldowns' | 'lastFailover'>;

/** A command's answer: plain text, or a reply with buttons (a held command's Confirm). */
export type CommandReply = string | Pick<OutboundMessage, 'text' | 'actions'>;

/**
 * A command handled without a model. Its `name`, `summary`, `ownerOnly` and `options` are what
 * Slack's slash command and Discord's application commands are registered and read from.
 */
export interface ChatCommand extends NativeCommand {
  /** Its answer is for the sender alone where the platform can do that (a native command's): it carries a code. */
  senderOnly?: boolean;
  run(context: CommandContext): Promise<CommandReply> | CommandReply;
}
