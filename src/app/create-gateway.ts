import { createSecretScrubber } from '../base/config/index.js';
import type { Toolpacks } from '../extensions/toolpacks/index.js';
import { channelsPart, connectPart } from './channels-part.js';
import type { Gateway, GatewayOptions } from './gateway-types.js';
import type { RestartNotes } from './host-ports.js';
import { httpPart } from './http-part.js';
import { applyLogSecrets, webchatSignIn } from './log-secrets.js';
import { mcpPart } from './mcp-part.js';
import { PartList } from './part.js';
import { servingPart } from './serving-part.js';
import { metricsPart, storagePart } from './storage-part.js';
import { signalsPart, toolpacksPart } from './toolpacks-part.js';
import { createTurnPort } from './turn-port.js';
import { turnsPart } from './turns-part.js';

export type { Gateway, GatewayExtensions, GatewayOptions } from './gateway-types.js';

/** What the gateway's own methods read of its parts once started. */
interface Started {
  toolpacks?: Toolpacks;
  notes?: RestartNotes | undefined;
}

/** The composition root: the only place where services are constructed and wired together. */
export function createGateway(options: GatewayOptions): Gateway {
  const parts = new PartList();
  const started: Started = {};
  return {
    async start() {
      try {
        return await startParts(options, parts, started);
      } catch (error) {
        await parts
          .stop()
          .catch((stopError: unknown) =>
            options.log.logger.error({ err: stopError }, 'cleanup after a failed start failed'),
          );
        throw error;
      }
    },
    stop: () => parts.stop(),
    wakeRestartNotes: () => started.notes?.wake(),
    get toolpackProblems() {
      return started.toolpacks?.problems ?? [];
    },
  };
}

/**
 * The parts in start order; a stop ends them in reverse (`part.ts`): the drain first, then the
 * channels and HTTP, the inbox sealed, the runners, the MCP servers, the store. The start-order
 * cycles (the router needs the agent runner, whose tools need the sub-agents and signal delivery,
 * which start turns on the router) go through one port, connected by the turns part.
 */
async function startParts(options: GatewayOptions, parts: PartList, started: Started) {
  const { token, log, loaded } = options;
  const { secrets, showToken } = applyLogSecrets(log, loaded.config, token, options.showTokenLink === true);
  const scrub = createSecretScrubber(secrets);
  const { stopping } = parts;
  const port = createTurnPort();
  const metrics = await parts.start(metricsPart(), options);
  const storage = await parts.start(storagePart(), { options, metrics, status: port.turns.sessionStatus });
  const base = await parts.start(channelsPart(), storage);
  const mcp = await parts.start(mcpPart(), { base, scrub });
  const signals = await parts.start(signalsPart(), { base, turns: port.turns, stopping });
  const toolpacks = await parts.start(toolpacksPart(), { base, ...signals });
  started.toolpacks = toolpacks;
  const turns = await parts.start(turnsPart(), { base, port, ...signals, toolpacks, mcp, secrets, scrub });
  const http = await parts.start(httpPart(), { base, turns, toolpacks, ...signals, mcp, token, scrub });
  await parts.start(connectPart(), { base, router: turns.router, toolpacks, metrics, stopping });
  const serving = await parts.start(servingPart(), { base, turns, http, stopping });
  started.notes = serving.notes;
  const webchatUrl = base.channels.webchat ? webchatSignIn(serving.url, token, showToken) : undefined;
  return { url: serving.url, webchatUrl };
}
