import path from 'node:path';
import { createFailoverState } from '../agents/index.js';
import { createSecretScrubber } from '../config/index.js';
import { createMcpServers, type McpServers, type McpServersOptions } from '../mcp/index.js';
import { scheduleSignals } from '../signals/index.js';
import { createToolActivity } from '../toolpacks/index.js';
import { buildTurns } from './build-turns.js';
import type { Gateway, GatewayOptions, Running } from './gateway-types.js';
import { applyLogSecrets, webchatSignIn } from './log-secrets.js';
import { createModelHealth } from './model-health.js';
import { buildSignalsAndToolpacks, openStorage, serve } from './start-phases.js';
import { stopServices } from './stop-services.js';
import { createTurnPort } from './turn-port.js';

export type { Gateway, GatewayExtensions, GatewayOptions } from './gateway-types.js';

/** The composition root: the only place where services are constructed and wired together. */
export function createGateway(options: GatewayOptions): Gateway {
  const logger = options.log.logger;
  const running: Running = { stopping: new AbortController() };
  const stop = () => stopServices(running, options.loaded.config.gateway.drainTimeoutMs);
  return {
    async start() {
      try {
        return await startServices(options, running);
      } catch (error) {
        await stop().catch((stopError: unknown) =>
          logger.error({ err: stopError }, 'cleanup after a failed start failed'),
        );
        throw error;
      }
    },
    stop,
    wakeRestartNotes: () => running.restartNotes?.wake(),
    get toolpackProblems() {
      return running.toolpacks?.problems ?? [];
    },
  };
}

/**
 * Builds every service in dependency order. The start-order cycles (the router needs the agent
 * runner, whose tools need the sub-agents and signal delivery, which start turns on the router)
 * go through one port, created first and connected once the router exists.
 */
async function startServices(options: GatewayOptions, running: Running) {
  const { config } = options.loaded;
  const logger = options.log.logger;
  const stateDir = path.resolve(config.stateDir);
  const { token } = options;
  const { secrets, showToken } = applyLogSecrets(options.log, config, token, options.showTokenLink === true);
  const turnPort = createTurnPort();
  const base = await openStorage(options, running, stateDir, turnPort.turns.sessionStatus);
  const { signals, toolpacks, messages } = await buildSignalsAndToolpacks(base, turnPort.turns);
  const scrub = createSecretScrubber(secrets);
  // Every registered tool's calls, for the Tools page (activity panels, per-tool status).
  const observed = { activity: createToolActivity({ scrub }), messages };
  // Gateway-wide: every turn's model chain skips the models cooling down after a 429.
  const now = options.now;
  const failover = createFailoverState(now ? { now: () => now().getTime() } : {});
  const models = createModelHealth({ scrub, failover });
  const mcp = startMcpServers({ config, configPath: base.configPath, logger, scrub, stateDir });
  running.mcp = mcp;
  const { router, subagents, gateway, riskSummaries } = await buildTurns(base, {
    turns: turnPort.turns,
    signals,
    toolpacks,
    activity: observed.activity,
    secrets,
    scrub,
    models,
    failover,
    mcp,
  });
  turnPort.connect(router);
  const scheduler = scheduleSignals(signals, {
    config,
    hooks: toolpacks.hooks,
    logger: logger.child({ component: 'signals' }),
  });
  running.scheduler = scheduler;
  const url = await serve(base, {
    router,
    subagents,
    gateway,
    toolpacks,
    scheduler,
    signals,
    observed,
    token: token.token,
    scrub,
    models,
    mcp,
    riskSummaries,
  });

  // Before any turn resumes: a call the last process left waiting finds its request again.
  await running.approvals?.start();
  await subagents.resume();
  // Messages the last process accepted and did not answer (a restart's drain, a crash).
  await router.resume();
  // Safe mode runs no schedules (issue 32 §2).
  if (!options.safeMode) scheduler.start();
  const restartNotes = options.restartNotes?.({
    sessions: base.sessions,
    outboundFor: base.channels.outboundFor,
    logger,
    signal: running.stopping.signal,
  });
  running.restartNotes = restartNotes;
  running.restartNote = restartNotes?.run();
  options.onServing?.({ webchat: base.channels.webchat });
  return { url, webchatUrl: base.channels.webchat ? webchatSignIn(url, token, showToken) : undefined };
}

/** The MCP servers, started in the background: HTTP serves at once, a server's tools appear when it is ready. */
function startMcpServers(options: McpServersOptions): McpServers {
  const logger = options.logger.child({ component: 'mcp' });
  const mcp = createMcpServers({ ...options, logger });
  mcp.start().catch((error: unknown) => logger.error({ err: error }, 'MCP servers did not start'));
  return mcp;
}
