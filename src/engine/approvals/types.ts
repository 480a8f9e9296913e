import type { Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { DeliveryRoute, OutboundFor } from '../../base/messages/index.js';
import type { Store } from '../../records/store/index.js';

/** What happened to a request: asked, decided, refused (a click that did not count), run. */
export type AuditEvent = 'requested' | 'approved' | 'denied' | 'expired' | 'used' | 'refused';

/** What an approval is for: a tool call a run waits on, or an owner's command held for confirmation. */
export type ApprovalKind = 'tool' | 'command';

/**
 * Where a request is: `pending` (waiting for a decision), `approved` (decided yes, not yet run),
 * `used` (approved and run: never again), `denied`, `expired` (no decision in time: a denial).
 */
export type ApprovalStatus = 'pending' | 'approved' | 'used' | 'denied' | 'expired';

/** One approval request as the store keeps it (namespace `approvals`). Never holds a secret. */
export interface ApprovalRecord {
  /** `ap_…`: bound into the buttons' values. */
  id: string;
  /** What a person types: `/approve K7Q2XD`. Unique among open requests. */
  code: string;
  kind: ApprovalKind;
  /** The tool, or the command's name (`config`). */
  tool: string;
  agentId: string;
  sessionKey: string;
  route: DeliveryRoute;
  /** Who made the call (the turn's sender) or typed the command. */
  requester: string;
  /** SHA-256 of the exact arguments (canonical JSON): a decision names it, so an edited one is refused. */
  argumentsHash: string;
  /** The arguments as the approver sees them: secrets removed, cut at 2,000 characters. */
  arguments: string;
  /** More for the approver (a config edit's diff), secrets removed. */
  details?: string;
  /** A held command: the command line to run once confirmed. */
  command?: string;
  approvers: string[];
  /**
   * Separation of duties applied (`approvals.separateDuties`): the identities of whoever made the
   * call, taken out of `approvers` and refused whatever they send.
   */
  madeBy?: string[];
  createdAt: string;
  expiresAt: string;
  status: ApprovalStatus;
  decidedBy?: string;
  decidedAt?: string;
  reason?: string;
  /** "Always for this tool in this agent" was chosen. */
  always?: boolean;
  /** The call writes "always" itself, in its own config edit (`ToolCallReview.alwaysInCall`): one write, no race. */
  alwaysInCall?: true;
}

export interface ApprovalsOptions {
  config: Config;
  store: Store;
  /** `<stateDir>/approvals-audit.jsonl` is appended to. */
  stateDir: string;
  /** Where requests and decisions are posted (with buttons where the platform has them). */
  outboundFor: OutboundFor;
  /**
   * Writes `agents.<agentId>.approvals.tools.<tool> = "auto"` through the config editor (validated,
   * audited); the text says what happened. The "always" decision.
   */
  rememberAlways(request: {
    agentId: string;
    tool: string;
    by: string;
    sessionKey: string;
    route: DeliveryRoute;
  }): Promise<string>;
  /** Removes secret values from text before it is shown or audited. */
  scrub(text: string): string;
  /** Told of each audited event (requested, approved, denied, expired, used, refused): the metrics. */
  onAudit?(event: AuditEvent): void;
  logger: Logger;
  now?: () => Date;
}
