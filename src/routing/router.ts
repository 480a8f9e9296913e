import PQueue from 'p-queue';
import type { TurnRunner } from '../agents/index.js';
import type { DeliveryRoute, DispatchResult, InboundMessage, OutboundMessage } from '../channels/index.js';
import { type Config, createSecretScrubber } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { GatewayControl } from '../tools/index.js';
import { resolveAgentId } from './bindings.js';
import { BUILTIN_COMMANDS, type ChatCommand, parseCommand } from './commands/index.js';
import { sessionKeyFor } from './session-key.js';
import { createSessionLanes, type LaneStatus } from './session-lanes.js';

export interface RouterOptions {
  config: Config;
  configFile: { path: string | undefined; hash: string };
  sessions: SessionStore;
  runner: TurnRunner;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  deliverDelta(route: DeliveryRoute, id: string, delta: string): void;
  logger: Logger;
  /** When the process started, for /status. */
  startedAt: number;
  commands?: readonly ChatCommand[];
  /** Secret values (tokens, keys) that never reach a transcript or a reply. */
  secrets?: readonly string[];
  /** What the owner commands /config and /restart act on. */
  gateway: GatewayControl;
}

export interface Router {
  /** Routes an inbound message: a chat command is answered at once, anything else queues a turn. */
  dispatch(message: InboundMessage): Promise<DispatchResult>;
  sessionStatus(sessionKey: string): LaneStatus;
  /** Messages waiting in the session's queue. */
  sessionDepth(sessionKey: string): number;
  /** Takes no new messages and lets running turns end (see SessionLanes.close). */
  close(timeoutMs: number): Promise<void>;
}

export function createRouter(options: RouterOptions): Router {
  const { config, sessions, logger } = options;
  const commands = options.commands ?? BUILTIN_COMMANDS;
  const scrub = createSecretScrubber(options.secrets ?? []);
  const lanes = createSessionLanes({
    scrub,
    sessions,
    runner: options.runner,
    queueMode: config.session.queueMode,
    limiter: new PQueue({ concurrency: config.session.maxConcurrentTurns }),
    deliver: options.deliver,
    deliverDelta: options.deliverDelta,
    logger,
  });
  const owners = new Set(config.owners);
  let closing = false;

  async function runCommand(
    message: InboundMessage,
    sessionKey: string,
    agentId: string,
    parsed: { name: string; args: string },
  ): Promise<DispatchResult> {
    const isOwner = owners.has(message.senderId);
    const command = commands.find((candidate) => candidate.name === parsed.name);
    let text: string;
    if (!command) {
      const names = commands
        .filter((candidate) => isOwner || !candidate.ownerOnly)
        .map((candidate) => `/${candidate.name}`);
      text = `Unknown command /${parsed.name}. Commands: ${names.join(', ')}.`;
    } else if (command.ownerOnly && !isOwner) {
      text = `/${command.name} is for owners only; you are ${message.senderId}.`;
    } else {
      text = await command.run({
        args: parsed.args,
        message,
        sessionKey,
        route: routeOf(message),
        agentId,
        isOwner,
        config,
        configFile: options.configFile,
        uptimeMs: Date.now() - options.startedAt,
        lanes,
        sessions,
        commands,
        gateway: options.gateway,
      });
    }
    const reply = { id: crypto.randomUUID(), text: scrub(text) };
    await options.deliver(routeOf(message), reply).catch((error: unknown) => {
      logger.warn({ err: error, session: sessionKey }, 'command reply delivery failed');
    });
    return { sessionKey, replies: [reply] };
  }

  return {
    async dispatch(message) {
      const agentId = resolveAgentId(config.bindings, config.defaultAgent, message);
      const sessionKey = sessionKeyFor(agentId, message);
      const parsed = parseCommand(message.text);
      if (parsed) return runCommand(message, sessionKey, agentId, parsed);

      if (closing)
        throw new SwitchboardError(
          'GATEWAY_STATE',
          'the gateway is stopping; send the message again shortly',
        );
      const agent = config.agents[agentId];
      // Validation guarantees that bindings and defaultAgent name configured agents.
      if (!agent) throw new SwitchboardError('GATEWAY_STATE', `agent "${agentId}" is not configured`);
      const route = routeOf(message);
      await sessions.ensure(sessionKey, { agentId, route });
      // The message is durable before its turn is queued: an acknowledged message is never lost.
      const entry = await sessions.append(sessionKey, {
        role: 'user',
        text: scrub(message.text),
        senderId: message.senderId,
        messageId: message.messageId,
      });
      return lanes.enqueue(
        { sessionKey, agentId, agent, route },
        { entry, senderId: message.senderId, isOwner: owners.has(message.senderId) },
      );
    },
    sessionStatus: (sessionKey) => lanes.status(sessionKey),
    sessionDepth: (sessionKey) => lanes.depth(sessionKey),
    close(timeoutMs) {
      closing = true;
      return lanes.close(timeoutMs);
    },
  };
}

function routeOf(message: InboundMessage): DeliveryRoute {
  return {
    channel: message.channel,
    chatType: message.chatType,
    chatId: message.chatId,
    ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
  };
}
