import type { Static, TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { Principal } from '../../base/access/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { OutboundMessage } from '../../base/messages/index.js';
import type { SessionDetails, SessionSummary } from '../../records/sessions/index.js';
import type {
  ApprovalVerdict,
  DecisionInput,
  DecisionOutcome,
  GatedCall,
  HeldCommand,
  ToolCallReview,
} from './approval-gate.js';
import type { ChatFilesPort } from './chat-files-port.js';
import type { GatewayControl } from './gateway-control.js';
import type { ToolRequirement } from './requirements.js';
import type { SubagentsPort } from './subagents-port.js';
import type { TurnScope } from './turn-scope.js';

/** What tools may ask of the sessions; built by the composition root. */
export interface SessionsService {
  /** Sessions of one agent, most recently active first. */
  list(options: { agentId: string; limit: number }): Promise<SessionSummary[]>;
  details(sessionKey: string): Promise<SessionDetails | undefined>;
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

/** The services tools may use. */
export interface ToolServices {
  sessions: SessionsService;
  gateway: GatewayControl;
  subagents: SubagentsPort;
  /** The approval gate every call passes; absent, every call runs (tests of one tool alone). */
  approvals?: ApprovalsPort;
  /** What `chat.attach` sends files through; absent, it answers that files cannot be sent. */
  chatFiles?: ChatFilesPort;
}

/** A turn as a tool sees it: its description, its run, and the services tools may use. */
export interface ToolContext extends TurnScope {
  runId: string;
  logger: Logger;
  /** Aborted when the run is stopped, times out or the gateway stops. */
  signal: AbortSignal;
  services: ToolServices;
  /**
   * Stops the run's time limit until the returned function is called (a call waiting for a human's
   * approval does not use up the run's time). Absent outside a run.
   */
  pauseTimeLimit?(): () => void;
  /**
   * Gives the turn's slot among the turns running at once back until the returned function is
   * called; that function resolves once the turn holds a slot again (a call waiting for a human's
   * approval does not keep other sessions waiting). Absent outside the session queues.
   */
  yieldSlot?(): () => Promise<void>;
  /** This call was approved with "always" and writes that policy itself (`ToolCallReview.alwaysInCall`): by whom. */
  approvedAlways?: { by: string };
  /** Who the turn runs as, with their role (docs/roles.md); absent outside a turn (tests, direct calls). */
  principal?: Principal;
}

/**
 * A model-facing tool. `execute` returns any JSON value; an expected failure returns
 * `{ ok: false, reason }`. Throwing is for bugs: the registry turns it into a tool error.
 */
/** The risk classes a tool carries (see `Tool.risk`). */
export const RISK_CLASSES = ['read', 'write', 'network', 'exec', 'control-plane', 'messaging'] as const;
export type RiskClass = (typeof RISK_CLASSES)[number];

export interface Tool<Parameters extends TSchema = TSchema> {
  name: string;
  /** What the model reads to decide when to call it. */
  description: string;
  parameters: Parameters;
  /**
   * `parameters` already compiled, with the registry's ajv options (`createAjv('authored')`, optimizer on or off), by
   * whoever checked the schema first (the toolpack loader): the registry uses it instead of
   * compiling the schema a second time. Absent: the registry compiles `parameters`.
   */
  validateParameters?: ValidateFunction;
  /** Listed and runnable only in owner turns. */
  ownerOnly?: boolean;
  /** Only reads state: consecutive read-only calls of one round may run in parallel. */
  readOnly?: boolean;
  /**
   * Safe to run again when a restart cut its call short and its result was never recorded (see
   * `isRestartSafe`): a read-only or idempotent tool. Absent: `readOnly`. `shell.exec`,
   * `messages.send`, the `gateway` tool, toolpack tools (unless their manifest says
   * `restartSafe`) and MCP tools (unless the server marks them read-only) are not.
   */
  restartSafe?: boolean;
  /**
   * Calls ask for approval by default (`approvals.tools` in config may say otherwise): `shell.exec`,
   * a toolpack tool its manifest or config marks risky. A tool whose `risk` has `exec` or
   * `control-plane` asks too.
   */
  risky?: boolean;
  /**
   * What the tool may do, for the person who installs an agent (issue 21): `read`, `write`,
   * `network`, `exec`, `control-plane`, `messaging`. An agent's risk summary is the union of its
   * tools' classes. Every built-in declares it (a unit test checks); a toolpack tool gets its
   * manifest's `risk` or a conservative default; config `tools.risk` may override it. Absent (a tool
   * from the gateway options): `read`, `write`. `exec` and `control-plane` ask an approver by default.
   */
  risk?: readonly RiskClass[];
  /**
   * Prerequisites (`chat-channel`: a chat platform that takes files). A tool whose prerequisite the
   * config misses is hidden from the model and refused if called; doctor and /status say why.
   */
  requires?: readonly ToolRequirement[];
  /**
   * Why the tool cannot run now, said after "it" (`needs MCP server "files", which is failed …`), or
   * undefined while it can: asked at each turn and call, like an unmet `requires`: the tool is
   * hidden from the model and a call is refused with the reason. For what comes and goes at run
   * time (an MCP server's connection).
   */
  unavailable?(): string | undefined;
  /**
   * The action a call asks for, for a tool with actions (the `gateway` tool: `config.patch`,
   * `restart`, …): a role may be given some actions of it and not others (`gateway:restart`).
   */
  actionOf?(input: Static<Parameters>): string | undefined;
  /** Decides per call instead of `risky` (the `gateway` tool: edits and restarts, not reads) and adds details (a diff). */
  review?(input: Static<Parameters>, context: ToolContext): Promise<ToolCallReview> | ToolCallReview;
  /** Ends the run after it executes (e.g. `ask_user`); its `post` text is sent to the chat. */
  boundary?: boolean;
  execute(input: Static<Parameters>, context: ToolContext): Promise<unknown> | unknown;
}

/** The outcome of one call, as it goes back to the model and into the transcript. */
export interface ToolCallOutcome {
  /** JSON text (a result) or a readable error text. */
  content: string;
  isError: boolean;
  /** The run ends after this call (a boundary tool ran). */
  endsRun: boolean;
  /** Text to post to the chat (a boundary tool's question). */
  post?: string;
}
