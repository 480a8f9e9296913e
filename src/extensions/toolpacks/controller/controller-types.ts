import type { Logger } from '../../../base/logging/index.js';
import type { ToolOutput } from '../runner/types.js';
import type { LoadedToolpack } from '../types.js';
import type { ProjectStore } from './project-store.js';

export interface ControllerAgent {
  id: string;
  displayName?: string;
}

export interface ControllerSignalRequest {
  toolpackId: string;
  /** Absent for signals from WebUI handlers, which run outside any activation. */
  activationId?: string;
  signal: unknown;
}

export interface ControllerSupportRequest {
  tool: string;
  input: unknown;
  agent: ControllerAgent;
  activationId: string;
  /**
   * The chat sender the calling turn is charged to (`causerOf`); the handler's context carries it
   * as `chargedTo`, and a message it sends later with `chargedTo` wakes its recipient at their cost.
   */
  chargedTo?: string;
}

/** What the scheduler passes on each tick (`now`, `agents`, …); the host adds `store` and `toolpackId`. */
export type SchedulerHookContext = Readonly<Record<string, unknown>>;
export type SchedulerHook = (context: SchedulerHookContext) => Promise<unknown>;

export interface ControllerHostOptions {
  toolpack: LoadedToolpack;
  /** This toolpack's store (`createProjectStore`). */
  store: ProjectStore;
  logger: Logger;
  /** `context.recordSignal(signal)` of a controller or WebUI handler lands here; errors reach the handler. */
  recordSignal(request: ControllerSignalRequest): void;
  /** `project` in WebUI and scheduler contexts, as Suzumio passes it; default `default`. */
  project?: string;
}

export interface ControllerHost {
  /** Runs the controller for one callSupport; the caller has checked the activation and the allowlist. */
  support(request: ControllerSupportRequest): Promise<ToolOutput>;
  webui(entryId: string, input: unknown): Promise<ToolOutput>;
  /** Whether `webui(entryId)` finds a handler; rejects when the module cannot load or its factory throws. */
  hasWebuiHandler(entryId: string): Promise<boolean>;
  /** The module's scheduler hook, or undefined when it exports none. */
  schedulerHook(): Promise<SchedulerHook | undefined>;
}
