import { createFailoverState, type FailoverState } from '../engine/agents/index.js';
import type { Approvals } from '../engine/approvals/index.js';
import type { IdentityPort } from '../engine/identity/index.js';
import type { Router } from '../engine/routing/index.js';
import { type Scheduler, scheduleSignals } from '../engine/signals/index.js';
import type { SubagentManager } from '../engine/subagents/index.js';
import type { GatewayControl, RiskSummaries } from '../engine/tools/index.js';
import type { McpServers } from '../extensions/mcp/index.js';
import { createToolActivity, type Toolpacks } from '../extensions/toolpacks/index.js';
import { createModelHealth, type ModelHealth } from '../surfaces/control/index.js';
import type { Observed } from './build-core-webui.js';
import { buildTurns } from './build-turns.js';
import type { Base } from './gateway-types.js';
import type { Part } from './part.js';
import type { Signals } from './toolpacks-part.js';
import type { TurnPort } from './turn-port.js';

/** What the turns part is handed. */
export interface TurnsContext extends Signals {
  base: Base;
  /** The turn port, connected to the router here, once it is built. */
  port: { turns: TurnPort; connect(router: TurnPort): void };
  toolpacks: Toolpacks;
  mcp: McpServers;
  secrets: readonly string[];
  scrub(text: string): string;
}

/** What the turns part starts. */
export interface Turns {
  router: Router;
  subagents: SubagentManager;
  approvals: Approvals;
  /** The `gateway` tool's side of this gateway (config edits, restarts); the config page's too. */
  control: GatewayControl;
  /** The signal scheduler's tick, started by the `serving` part (not in safe mode). */
  scheduler: Scheduler;
  /** Every registered tool's calls and the message log (the Tools page). */
  observed: Observed;
  /** Each model's last call (the health page). */
  models: ModelHealth;
  riskSummaries: RiskSummaries;
  /** Identity links and pairing (`/link`, `/pair`, the People page). */
  identity: IdentityPort;
  /**
   * Stops the tick, drains the router and the sub-agents (the router up to
   * `gateway.drainTimeoutMs`), lets wake turns settle; `alongside` (the restart notes' loop) is
   * waited for once the sub-agents began closing. Once only.
   */
  drain(alongside?: Promise<void>): Promise<void>;
}

/**
 * The gateway control, the approvals, the sub-agents, the agent runner and the router that runs
 * their turns (`build-turns.ts`), connected to the turn port; then the signal scheduler over it.
 * Model cooldowns are gateway-wide: every turn's model chain skips the models cooling down after a 429.
 * The stop seals the router's inbox: the transports stopped before it, so a message that arrived
 * during the drain is stored for the next start.
 */
export function turnsPart(): Part<TurnsContext, Turns> {
  let router: Router | undefined;
  let drained: Promise<void> | undefined;
  let drainOnce: Turns['drain'] = async () => {};
  return {
    name: 'turns',
    async start(context) {
      const { base, scrub, signals } = context;
      const now = base.options.now;
      const failover: FailoverState = createFailoverState(now ? { now: () => now().getTime() } : {});
      const models = createModelHealth({ scrub, failover });
      const observed = { activity: createToolActivity({ scrub }), messages: context.messages };
      const built = await buildTurns(base, {
        turns: context.port.turns,
        signals,
        toolpacks: context.toolpacks,
        activity: observed.activity,
        secrets: context.secrets,
        scrub,
        models,
        failover,
        mcp: context.mcp,
      });
      router = built.router;
      context.port.connect(built.router);
      const scheduler = scheduleSignals(signals, {
        config: base.config,
        hooks: context.toolpacks.hooks,
        logger: base.logger.child({ component: 'signals' }),
      });
      const drain = async (alongside?: Promise<void>) => {
        await scheduler.stop();
        // Sub-agent runs that end during the drain record their end before the store closes.
        const subagentsClosed = built.subagents.close();
        await alongside;
        await built.router.close(base.config.gateway.drainTimeoutMs);
        built.approvals.close();
        await subagentsClosed;
        // Wake turns the drain ended clear their signals (or keep them for the next start) before the store closes.
        await signals.settled();
      };
      drainOnce = (alongside) => {
        drained ??= drain(alongside);
        return drained;
      };
      return {
        ...built,
        control: built.gateway,
        scheduler,
        observed,
        models,
        drain: (alongside) => drainOnce(alongside),
      };
    },
    async stop() {
      await drainOnce();
      // Messages that arrived during the drain are being stored: the store waits for them.
      await router?.seal();
    },
  };
}
