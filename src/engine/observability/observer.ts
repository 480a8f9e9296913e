import type { Config } from '../../base/config/index.js';
import type { InboundHandler, OutboundFor } from '../../base/messages/index.js';
import type { ModelProvider, TurnRunner } from '../agents/index.js';
import type { Tool } from '../tools/index.js';
import type { Metrics, ScrapeSources } from './metrics.js';
import type { Observation } from './observation.js';
import { observeInbound, observeOutbound } from './observe-channels.js';
import { observeModel } from './observe-model.js';
import { observeTool } from './observe-tools.js';
import { observeTurns } from './observe-turns.js';
import { createTracer } from './tracing.js';

/** An approval's audit event, as `createApprovals`' `onAudit` reports it. */
export type ApprovalEventName = 'requested' | 'approved' | 'denied' | 'expired' | 'used' | 'refused';

/**
 * What one gateway wraps its parts with: each wrapper counts into the host's metrics and opens
 * OpenTelemetry spans (no-ops unless an SDK is registered). The composition root hands each part
 * through the matching wrapper; the wrappers change no behaviour.
 */
export function createObserver(options: { metrics: Metrics; config: Config }) {
  const observation: Observation = { metrics: options.metrics, tracer: createTracer() };
  const { instruments } = options.metrics;
  return {
    model: (provider: ModelProvider) => observeModel(observation, options.config, provider),
    turns: (runner: TurnRunner) => observeTurns(observation, runner),
    tool: <T extends Tool>(tool: T) => observeTool(observation, tool),
    inbound: (handler: InboundHandler) => observeInbound(observation, handler),
    outbound: (outboundFor: OutboundFor) => observeOutbound(observation, outboundFor),
    approval: (event: ApprovalEventName) => instruments.approvals.inc({ event }),
    /** The running gateway's gauges until the returned function is called. */
    bind: (sources: ScrapeSources) => options.metrics.bind(sources),
  };
}

export type Observer = ReturnType<typeof createObserver>;
