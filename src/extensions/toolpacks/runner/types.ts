import type { Result } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { LoadedToolpack } from '../types.js';
import type { RunnerSandbox } from './runner-sandbox.js';

/** What a tool handler (runner or controller side) returns, as Suzumio defines it. */
export interface ToolOutput {
  output: unknown;
  title?: string;
  metadata?: unknown;
}

/** The model activation (one agent turn) a tool call belongs to. */
export interface RunnerActivation {
  activationId: string;
  /** Secret per activation; the gateway checks it in callSupport. It never enters the runner process. */
  token: string;
}

export interface RunnerSupportRequest {
  activation: RunnerActivation;
  toolpackId: string;
  tool: string;
  input: unknown;
}

export interface RunnerSignalRequest {
  activation: RunnerActivation;
  toolpackId: string;
  signal: unknown;
}

export interface RunnerHostOptions {
  agentId: string;
  /** The project id (`default` for now). */
  project: string;
  /** Only the toolpacks this agent may use: the caller filters by the allowlist. */
  toolpacks: readonly LoadedToolpack[];
  /** Absolute; created if missing. The runner may read and write here. */
  workspace: string;
  /** Absolute; created if missing. The runner may write here (and read back what it wrote). */
  artifactsDir: string;
  /**
   * Absolute; folders the sandbox hides (an empty one in their place) where a granted path holds
   * them: the posted files of every person (`<stateDir>/uploads`), in case a configured workspace
   * contains the state directory.
   */
  hidden?: readonly string[];
  /** Keeps the runner off the network and away from the gateway's processes (`tools.runnerSandbox`). */
  sandbox: RunnerSandbox;
  /** Per handler call, from the moment the call reaches a ready runner. */
  timeoutMs: number;
  logger: Logger;
  /** `context.callSupport(tool, input)` inside the runner lands here; the gateway checks and runs the controller. */
  callSupport(request: RunnerSupportRequest): Promise<ToolOutput>;
  /** `context.recordSignal(signal)` inside the runner lands here. */
  recordSignal(request: RunnerSignalRequest): Promise<void>;
}

export interface RunnerCallRequest {
  toolpackId: string;
  tool: string;
  input: unknown;
  activation: RunnerActivation;
  signal?: AbortSignal;
}

/** The handler's output, or a readable message of why there is none. */
export type RunnerCallResult = Result<ToolOutput>;

export interface RunnerHost {
  /**
   * Runs one tool handler in the runner process, starting it on first use. Never throws: a handler
   * error, a timeout or a dead process is `{ ok: false, error }` with a readable message. Aborting
   * `signal` ends the call (the handler itself runs on; its late answer is dropped).
   */
  call(request: RunnerCallRequest): Promise<RunnerCallResult>;
  /** Kills the process (if any) and resolves once it and its pipes are gone; later calls start a new one. */
  stop(): Promise<void>;
}
