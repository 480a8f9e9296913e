import type { ToolCallOutcome, ToolRegistry } from '../tools/index.js';

/** A tool call that succeeded, as signals' useful-effect tracking reads it. */
export interface SucceededCall {
  tool: string;
  agentId: string;
  sessionKey: string;
}

/**
 * The registry with every call's outcome reported: a call that is not an error and whose result
 * is not `{ ok: false }` (a refusal the tool returned) is `succeeded`. The smallest hook for the
 * useful effects of wake turns: the turn's tool results, seen where every call passes.
 */
export function observeToolOutcomes(
  registry: ToolRegistry,
  succeeded: (call: SucceededCall) => void,
): ToolRegistry {
  return {
    register: (tool, source) => registry.register(tool, source),
    get: (name) => registry.get(name),
    visible: (policy) => registry.visible(policy),
    async execute(name, rawArguments, policy, context) {
      const outcome = await registry.execute(name, rawArguments, policy, context);
      if (isSuccess(outcome))
        succeeded({ tool: name, agentId: context.agentId, sessionKey: context.sessionKey });
      return outcome;
    },
  };
}

function isSuccess(outcome: ToolCallOutcome): boolean {
  if (outcome.isError) return false;
  try {
    const result: unknown = JSON.parse(outcome.content);
    return !(typeof result === 'object' && result !== null && (result as { ok?: unknown }).ok === false);
  } catch {
    return true;
  }
}
