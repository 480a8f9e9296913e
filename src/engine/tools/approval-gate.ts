import type { DeliveryRoute, ReplyAction } from '../../base/messages/index.js';

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
