import type { DeliveryRoute, OutboundMessage, ReplyAction } from '../../base/messages/index.js';
import type { ToolContext } from './types.js';

/**
 * What a tool says about one call before it runs, for the approval policy: whether the call is
 * risky by default (`ask` unless config says otherwise) and what the approver should see besides
 * the arguments (a config edit's diff). Absent: the tool's `risky` flag decides.
 */
export interface ToolCallReview {
  risky: boolean;
  /** Shown under the arguments in the request (secrets removed by the tool). */
  details?: string;
  /**
   * The call's result, known without running it: it would be refused or change nothing (a stale
   * hash, a no-op patch, restarts disabled). Nobody is asked, the tool does not run, the model reads this.
   */
  answer?: unknown;
  /**
   * "Always" on this call's approval is written by the call itself, in the one config edit it makes
   * (the gateway tool's edits): the approvals service does not write it separately, which would race it.
   */
  alwaysInCall?: true;
}

/** A tool call waiting at the approval gate: the tool, its checked arguments, what it said of them. */
export interface GatedCall {
  tool: string;
  input: unknown;
  review: ToolCallReview;
}

/**
 * The approval's answer to a call. Anything but `approved` is a normal tool result the model reads
 * (`{ status: "denied", by, reason }`): a denial never errors the run.
 */
export type ApprovalVerdict =
  | {
      status: 'approved';
      by: string /** "Always" was chosen and the call writes it (`alwaysInCall`). */;
      always?: true;
    }
  | { status: 'denied'; by: string; reason: string };

/** A decision, typed (`/approve K7Q2XD`) or clicked (a button's opaque value). */
export type DecisionInput =
  | {
      kind: 'code';
      code: string;
      decision: 'approve' | 'deny' | 'always' | 'confirm';
      reason?: string;
      by: string;
    }
  | { kind: 'action'; value: string; by: string };

/** What a decision did: the text for whoever decided (it replaces a clicked message's buttons). */
export interface DecisionOutcome {
  text: string;
  /**
   * A click that did not decide (not an approver's, a mismatched value) on a request still open:
   * the buttons the message keeps, so the approver can still click (the text says why it did not count).
   */
  actions?: ReplyAction[];
  /** A held owner command now confirmed: the router runs it (once) as its owner typed it. */
  confirmed?: HeldCommand;
}

/** An owner's command held until they confirm it (`/config apply`, a patch that removes keys). */
export interface HeldCommand {
  /** The command line as typed, run again with `confirmed` once the owner confirms. */
  text: string;
  senderId: string;
  sessionKey: string;
  agentId: string;
  route: DeliveryRoute;
  /** One line: what it will do. */
  summary: string;
  /** The change it makes (a diff), secrets removed. */
  details?: string;
}

/**
 * Approvals as tools and chat commands reach them; built by the composition root
 * (`src/engine/approvals`). `check` is the gate every tool call passes after its arguments are checked.
 */
export interface ApprovalsPort {
  /**
   * The policy for this call (`auto`, `ask`, `deny`), and for `ask` the wait for a decision (the
   * run's time limit paused meanwhile). Rejects only with the run's abort reason (the request stays
   * pending in the store; the same call after a restart waits for it again).
   */
  check(call: GatedCall, context: ToolContext): Promise<ApprovalVerdict>;
  decide(input: DecisionInput): Promise<DecisionOutcome>;
  /** Whether a call of this session waits for a decision now (a drain stops such a turn at once). */
  waiting(sessionKey: string): boolean;
  /** Holds a command for its owner's confirmation; the reply to post (with a Confirm button). */
  hold(command: HeldCommand): Promise<OutboundMessage>;
}
