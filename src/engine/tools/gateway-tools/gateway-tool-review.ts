import { clipDiff, REVIEW_DIFF_LIMIT } from '../../../base/config/index.js';
import type { ToolCallReview } from '../approval-gate.js';
import type { GatewayEditRequest } from '../gateway-control.js';
import type { ToolContext } from '../types.js';

/** The gateway tool's arguments this file reads (its schema is in gateway-tool.ts). */
export interface GatewayCallInput {
  action:
    | 'config.get'
    | 'config.schema.lookup'
    | 'config.patch'
    | 'config.apply'
    | 'restart'
    | 'update.check'
    | 'update.run'
    | 'update.status';
  target?: string | undefined;
  raw?: string | undefined;
  baseHash?: string | undefined;
  note?: string | undefined;
  reason?: string | undefined;
  delayMs?: number | undefined;
  restartDelayMs?: number | undefined;
  replacePaths?: string[] | undefined;
  sessionKey?: string | undefined;
}

/**
 * What the approval gate is told of a gateway call: reads are not risky; every edit and restart is
 * (`ask` by default), an edit with its diff (planned and start-checked as the edit itself would be,
 * secrets redacted, nothing written). A call that would be refused (no raw or baseHash, a stale
 * hash, an invalid or guarded change, restarts disabled) or changes nothing is not put to anyone:
 * its result is the `answer`. "Always" on an edit's approval is written by the edit itself.
 */
export async function reviewGatewayCall(
  input: GatewayCallInput,
  context: ToolContext,
): Promise<ToolCallReview> {
  switch (input.action) {
    case 'config.get':
    case 'config.schema.lookup':
    case 'update.check':
    case 'update.status':
      return { risky: false };
    case 'update.run':
      return {
        risky: true,
        details: `Update the gateway to ${input.target ? `\`${input.target}\`` : 'the head of its configured source'}: proved on a copy first, then switched and restarted; rolled back by itself if it does not stay ready.`,
      };
    case 'restart': {
      const allowed = context.services.gateway.restartAllowed();
      if (!allowed.ok) return { risky: true, answer: { ok: false, error: allowed.error } };
      const delay = input.delayMs === undefined ? '' : ` in ${input.delayMs} ms`;
      return {
        risky: true,
        details: `Restart the gateway${delay}${input.reason ? `: ${input.reason}` : ''}.`,
      };
    }
    case 'config.patch':
    case 'config.apply': {
      const request = editRequest(input, context);
      if (request === undefined) return { risky: true, answer: { ok: false, error: missingInput(input) } };
      const preview = await context.services.gateway.configPreview(input.action, request);
      if (!preview.ok) return { risky: true, answer: { ok: false, error: preview.error } };
      const plan = preview.value;
      if (!plan.changed) return { risky: true, answer: { ok: true, result: plan } };
      const removes = plan.removedPaths.length > 0 ? `; removes ${plan.removedPaths.join(', ')}` : '';
      const diff = clipDiff(plan.diff, REVIEW_DIFF_LIMIT);
      return {
        risky: true,
        alwaysInCall: true,
        details: `Changes ${plan.changedPaths.join(', ')}${removes}.\n\`\`\`diff\n${diff}\n\`\`\``,
      };
    }
  }
}

/** Why a config.patch or config.apply call without raw or baseHash is refused. */
export function missingInput(input: GatewayCallInput): string {
  return input.raw === undefined
    ? `${input.action} needs raw`
    : `${input.action} needs baseHash: call config.get first and pass its hash`;
}

/** The edit request of a config.patch or config.apply call; undefined without raw or baseHash. */
export function editRequest(input: GatewayCallInput, context: ToolContext): GatewayEditRequest | undefined {
  if (input.raw === undefined || input.baseHash === undefined) return undefined;
  return {
    raw: input.raw,
    baseHash: input.baseHash,
    note: input.note,
    sessionKey: input.sessionKey ?? context.sessionKey,
    // The caller's own session may have no record yet; its route is known here.
    route: input.sessionKey === undefined ? context.route : undefined,
    restartDelayMs: input.restartDelayMs,
    replacePaths: input.replacePaths,
    actor: context.senderId,
    via: 'tool',
    ...(context.approvedAlways
      ? { always: { agentId: context.agentId, tool: 'gateway', by: context.approvedAlways.by } }
      : {}),
  };
}
