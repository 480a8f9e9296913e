import { type Approvals, createApprovals } from '../engine/approvals/index.js';
import type { GatewayControl } from '../engine/tools/index.js';
import { alwaysPatch } from './gateway-control.js';
import type { Base } from './gateway-types.js';

/**
 * The approvals service, posting requests through the channels. "Always for this tool in this
 * agent" is a config patch made by the approver through the editor (validated, audited, applied by
 * the restart it schedules); the service itself stops asking at once.
 */
export function buildApprovals(
  base: Base,
  parts: { gateway: GatewayControl; scrub(text: string): string },
): Approvals {
  const { gateway } = parts;
  const approvals = createApprovals({
    config: base.config,
    store: base.store,
    stateDir: base.stateDir,
    outboundFor: base.channels.outboundFor,
    scrub: parts.scrub,
    ...(base.observer ? { onAudit: base.observer.approval } : {}),
    logger: base.logger.child({ component: 'approvals' }),
    async rememberAlways({ agentId, tool, by, sessionKey, route }) {
      const snapshot = await gateway.configGet();
      if (!snapshot.ok) return `The config was not changed: ${snapshot.error}`;
      const patch = alwaysPatch(agentId, tool);
      const edited = await gateway.configEdit('config.patch', {
        raw: JSON.stringify(patch),
        baseHash: snapshot.value.hash,
        note: `always allow ${tool} in agent ${agentId}, decided by ${by}`,
        sessionKey,
        route,
        actor: by,
        via: 'command',
      });
      if (!edited.ok) return `The config was not changed (${edited.error}); it asks again after a restart.`;
      return `Written to agents.${agentId}.approvals.tools in the config.`;
    },
  });
  return approvals;
}
