import type { Tool } from '../engine/tools/index.js';

/** A tool call that succeeded, as signals' useful-effect tracking reads it. */
export interface SucceededCall {
  tool: string;
  agentId: string;
  sessionKey: string;
}

/**
 * The tool with each successful call reported: one that returned and did not answer `ok: false`.
 * The tool's own `execute` runs only once the registry has checked its arguments and its approval
 * gate has granted the call, so a refused or denied call is never reported: the useful effects
 * of wake turns.
 */
export function reportSuccess<T extends Tool>(tool: T, succeeded: (call: SucceededCall) => void): T {
  const execute = tool.execute.bind(tool) as Tool['execute'];
  const reported: Tool['execute'] = async (input, context) => {
    const result = await execute(input, context);
    if ((result as { ok?: unknown } | null)?.ok !== false)
      succeeded({ tool: tool.name, agentId: context.agentId, sessionKey: context.sessionKey });
    return result;
  };
  return { ...tool, execute: reported };
}
