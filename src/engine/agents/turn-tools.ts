import {
  isRestartSafe,
  type Tool,
  type ToolCallOutcome,
  type ToolContext,
  type ToolPolicy,
  type ToolRegistry,
} from '../tools/index.js';
import type { ModelToolCall, ModelToolSpec } from './providers/index.js';

/** The tools of one turn: what the model is shown, and how one of its calls runs. */
export interface TurnTools {
  visible: readonly Tool[];
  specs: ModelToolSpec[];
  /** Consecutive calls of read-only tools in one round may run together. */
  isReadOnly(name: string): boolean;
  /** A call cut short by a restart, its result never recorded, may run again (`isRestartSafe`). */
  isRestartSafe(name: string): boolean;
  /** Never throws but the turn's abort reason (see `ToolRegistry.execute`). */
  execute(call: ModelToolCall): Promise<ToolCallOutcome>;
}

/** The tools `policy` lets this turn see, run through the registry with `context`. */
export function turnTools(registry: ToolRegistry, policy: ToolPolicy, context: ToolContext): TurnTools {
  const visible: readonly Tool[] = registry.visible(policy);
  return {
    visible,
    specs: visible.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as Record<string, unknown>,
    })),
    isReadOnly: (name) => visible.some((tool) => tool.name === name && tool.readOnly === true),
    isRestartSafe: (name) => visible.some((tool) => tool.name === name && isRestartSafe(tool)),
    execute: (call) => registry.execute(call.name, call.arguments, policy, context),
  };
}
