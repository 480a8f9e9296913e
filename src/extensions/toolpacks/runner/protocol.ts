import type { ToolOutput } from './types.js';

/**
 * The messages between the runner host and `runner-process.mjs`, over the IPC channel of
 * `child_process.fork` (JSON serialization). Ids are per direction: the host numbers its calls and
 * pings, the runner numbers its requests. Both ends ignore a message they do not know, and an answer
 * to an id they no longer wait for (a call that timed out or was aborted).
 */

/** One toolpack as the runner sees it: its module and the tool names its manifest declares. */
export interface RunnerToolpackSpec {
  id: string;
  runnerModule: string;
  tools: string[];
}

export type HostMessage =
  /** Sent once, first. The runner imports every module, then answers `ready`. */
  | { type: 'init'; agentId: string; project: string; workspace: string; toolpacks: RunnerToolpackSpec[] }
  | { type: 'call'; id: number; toolpackId: string; tool: string; input: unknown; activationId: string }
  /** Liveness check after a timeout: a runner whose event loop is stuck cannot answer. */
  | { type: 'ping'; id: number }
  /** The answer to a runner request. */
  | { type: 'reply'; id: number; ok: true; result: unknown }
  | { type: 'reply'; id: number; ok: false; error: string };

export type RunnerRequest =
  | {
      type: 'callSupport';
      id: number;
      activationId: string;
      toolpackId: string;
      tool: string;
      input: unknown;
    }
  | { type: 'recordSignal'; id: number; activationId: string; toolpackId: string; signal: unknown };

export type RunnerMessage =
  /** `rejected` maps a toolpack id to why its module could not be used (failed import, no factory). */
  | { type: 'ready'; rejected: Record<string, string> }
  /** `result` is the handler's raw return value; the host shapes it with `toolOutputFromRunner`. */
  | { type: 'result'; id: number; result: unknown }
  /** `error` is the final text for the caller; `stack` is present when a handler or factory threw. */
  | { type: 'error'; id: number; error: string; stack?: string }
  | { type: 'pong'; id: number }
  | RunnerRequest;

const RUNNER_MESSAGE_TYPES = new Set(['ready', 'result', 'error', 'pong', 'callSupport', 'recordSignal']);

/** A shape check only: the runner is trusted code, so fields are not validated one by one. */
export function isRunnerMessage(value: unknown): value is RunnerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && RUNNER_MESSAGE_TYPES.has(type);
}

/**
 * A runner handler's return value, as it crossed the JSON channel, as a tool output:
 * `{ output, title?, metadata? }` is kept (a non-string title is dropped, a missing output is null);
 * any other value (a bare string, a number, an array) becomes `{ output: value }`, and nothing
 * (JSON has no undefined) is `{ output: null }`. Not the controller's rule
 * (`toolOutputFromController`): the two differ on nothing, and toolpack authors depend on each.
 */
export function toolOutputFromRunner(value: unknown): ToolOutput {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'output' in value) {
    const shaped = value as { output: unknown; title?: unknown; metadata?: unknown };
    return {
      output: shaped.output ?? null,
      ...(typeof shaped.title === 'string' ? { title: shaped.title } : {}),
      ...(shaped.metadata === undefined ? {} : { metadata: shaped.metadata }),
    };
  }
  return { output: value ?? null };
}
