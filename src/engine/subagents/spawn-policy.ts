import { type Config, modelChain } from '../../base/config/index.js';
import { fail, ok, type Result } from '../../base/errors/index.js';
import { subagentDepth } from '../../records/sessions/index.js';
import type { SpawnRequest, SubagentCaller } from '../tools/index.js';
import { isActiveSubagentRun, type SubagentRun } from './registry.js';

/**
 * The `subagents` limits, checked before a spawn: depth, which agents, which model, and how
 * many active children the session has. A refusal names the limit and its config key. Without a
 * model in the request the child keeps its agent's model chain (`models`: its fallbacks too).
 */
export function checkSpawn(
  config: Config,
  caller: SubagentCaller,
  request: SpawnRequest,
  callerRuns: readonly SubagentRun[],
): Result<{ agentId: string; model: string; models?: string[] }> {
  const limits = config.subagents;
  const depth = subagentDepth(caller.sessionKey);
  if (depth + 1 > limits.maxSpawnDepth) {
    return fail(
      `subagents.maxSpawnDepth is ${limits.maxSpawnDepth}: a session at depth ${depth} cannot spawn sub-agents.`,
    );
  }
  const agentId = request.agentId ?? caller.agentId;
  const allowed =
    agentId === caller.agentId || limits.allowAgents.includes('*') || limits.allowAgents.includes(agentId);
  if (!allowed) {
    return fail(
      `Agent "${agentId}" is not allowed: subagents.allowAgents is [${limits.allowAgents.join(', ')}] (a session may always spawn its own agent, "${caller.agentId}").`,
    );
  }
  const agent = config.agents[agentId];
  if (!agent) return fail(`Unknown agent "${agentId}" (have: ${Object.keys(config.agents).join(', ')}).`);
  const chain = request.model === undefined ? modelChain(config, agent.model) : [request.model];
  const model = chain[0];
  if (model === undefined) return fail(`Agent "${agentId}" has no model, so it cannot run as a sub-agent.`);
  if (!(model in config.models)) {
    return fail(`Unknown model "${model}" (have: ${Object.keys(config.models).join(', ') || 'none'}).`);
  }
  const children = new Set(callerRuns.filter(isActiveSubagentRun).map((run) => run.childSessionKey));
  if (children.size >= limits.maxChildrenPerSession) {
    return fail(
      `subagents.maxChildrenPerSession is ${limits.maxChildrenPerSession}: this session already has ${children.size} active sub-agents; wait for one to end or kill one.`,
    );
  }
  return ok({ agentId, model, ...(chain.length > 1 ? { models: chain } : {}) });
}
