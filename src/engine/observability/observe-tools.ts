import type { Tool } from '../tools/index.js';
import type { Observation } from './observation.js';
import { inSpan } from './tracing.js';

/**
 * The tool with each call counted by outcome (`ok`; `failed`: it answered `ok: false`; `error`:
 * it threw) in a `switchboard.tool_call` span. Its `execute` runs only once the registry has
 * checked the arguments and the approval gate granted the call: a refused call is counted by the
 * approvals, not here. Arguments are never recorded.
 */
export function observeTool<T extends Tool>(observation: Observation, tool: T): T {
  const { instruments } = observation.metrics;
  const execute = tool.execute.bind(tool) as Tool['execute'];
  const observed: Tool['execute'] = (input, context) => {
    const attributes = { 'switchboard.tool': tool.name, 'switchboard.agent': context.agentId };
    return inSpan(observation.tracer, 'switchboard.tool_call', attributes, async (span) => {
      let outcome = 'error';
      try {
        const result = await execute(input, context);
        outcome = (result as { ok?: unknown } | null)?.ok === false ? 'failed' : 'ok';
        return result;
      } finally {
        span.setAttribute('switchboard.outcome', outcome);
        instruments.toolCalls.inc({ tool: tool.name, outcome });
      }
    });
  };
  return { ...tool, execute: observed };
}
