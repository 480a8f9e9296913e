import type { AgentRiskStatus } from '../../../src/surfaces/control/contracts.js';

export type { AgentRiskStatus };

// The health page's Agents card: each agent's model chain and risk summary (the union of the risk
// classes of the tools its allowlist lets it see), from `GET /api/status` `agents`. Owner-only
// classes are marked; tools hidden for a missing prerequisite are named with why.

/** Classes that ask an approver by default: shown as a warning, with the word. */
const ASKING = new Set(['exec', 'control-plane']);

export function AgentRiskCard({ agents }: { agents: readonly AgentRiskStatus[] }) {
  return (
    <article class="card health-card" aria-labelledby="health-agents">
      <h3 id="health-agents">Agents and risk</h3>
      {agents.length === 0 ? <p class="muted">No agents configured.</p> : null}
      <ul class="rows">
        {agents.map((agent) => (
          <li key={agent.id} data-agent={agent.id}>
            <strong>{agent.id}</strong> <span class="muted">{agent.models}</span>
            <p class="risk">
              {agent.risk.length === 0 ? <span class="muted">no tools</span> : null}
              {agent.risk.map((risk) => (
                <span key={risk} class={`state ${ASKING.has(risk) ? 'warn' : 'ok'}`} data-risk={risk}>
                  {risk}
                  {agent.ownerOnly.includes(risk) ? ' (owner only)' : ''}
                </span>
              ))}
            </p>
            {agent.unavailable.map((tool) => (
              <p key={tool.name} class="reason">
                {tool.name} unavailable: {tool.reason}
              </p>
            ))}
          </li>
        ))}
      </ul>
    </article>
  );
}
