import PQueue from 'p-queue';
import type { TurnRunner } from '../agents/index.js';
import { type AgentConfig, type Config, createSecretScrubber } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type {
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundMessage,
  OutboundMessage,
} from '../messages/index.js';
import {
  chatSessionKey,
  type NewTranscriptEntry,
  type SessionStore,
  type TranscriptEntry,
} from '../sessions/index.js';
import type { Store } from '../store/index.js';
import type { GatewayControl, SubagentsService } from '../tools/index.js';
import { resolveAgentId } from './bindings.js';
import { BUILTIN_COMMANDS, type ChatCommand, parseCommand } from './commands/index.js';
import { createInbox } from './inbox.js';
import { createIntake, routeOf } from './intake.js';
import { createSessionQueues, type QueueStatus } from './session-queues.js';

export interface RouterOptions {
  config: Config;
  configFile: { path: string | undefined; hash: string };
  sessions: SessionStore;
  /** Where accepted messages wait until they are answered (the `inbox` namespace). */
  store: Store;
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
  /** What /subagents and /stop act on; set once the sub-agent service exists (it needs the router). */
  subagents: () => SubagentsService;
}

/** A turn the runtime starts without an inbound message: never an owner turn. */
export interface RuntimeTurnRequest {
  sessionKey: string;
  agentId: string;
  /** The session's chat; used when the session is new. */
  route: DeliveryRoute;
  /** Written to the transcript when its turn takes it (a task, a steer, an announcement). */
  entry: NewTranscriptEntry;
  senderId: string;
  /** Replaces parts of the agent's config for this session (a sub-agent's model). */
  agentOverrides?: Partial<AgentConfig>;
  depth?: number;
  runTimeoutSeconds?: number;
  /** `steer`: join the session's running turn before its next model call, if there is one. */
  mode?: 'steer';
  /**
   * The entry is already in the transcript (a delivery resumed after a restart): its turn is
   * queued without appending it again.
   */
  appended?: TranscriptEntry;
}

export interface Router {
  /**
   * Routes an inbound message: a chat command is answered at once; anything else is stored in the
   * inbox (durable) and queued, or, while the gateway stops, kept for the next start.
   * `options.accepted` is called once the message is stored (a command: before it runs); the
   * promise resolves when the turn ends.
   */
  dispatch(message: InboundMessage, options?: DispatchOptions): Promise<DispatchResult>;
  /**
   * Starts a turn for the runtime (sub-agent tasks, steering, announcements). Resolves once the
   * entry is queued (it is not kept across a stop: its sender keeps it); `done` resolves when the
   * turn that answers it ends.
   */
  startTurn(request: RuntimeTurnRequest): Promise<{ done: Promise<DispatchResult> }>;
  /** Aborts the session's running turn (status `killed`); false when none runs. */
  stopTurn(sessionKey: string, reason: string): boolean;
  /** Drops the session's queued messages; returns how many. */
  clearQueue(sessionKey: string): number;
  sessionStatus(sessionKey: string): QueueStatus;
  /** Whether any session of the agent has a turn queued or running. */
  agentBusy(agentId: string): boolean;
  /** Messages waiting in the session's queue. */
  sessionDepth(sessionKey: string): number;
  /** Queues the messages the last process accepted and did not answer; returns how many. */
  resume(): Promise<number>;
  /** Starts no new turns (messages are kept for the next start) and lets running turns end (see SessionQueues.close). */
  close(timeoutMs: number): Promise<void>;
  /** Takes no more messages at all and waits for those being stored: call before the store closes. */
  seal(): Promise<void>;
}

export function createRouter(options: RouterOptions): Router {
  const { config, sessions, logger } = options;
  const commands = options.commands ?? BUILTIN_COMMANDS;
  const scrub = createSecretScrubber(options.secrets ?? []);
  const inbox = createInbox({ store: options.store });
  const queues = createSessionQueues({
    scrub,
    sessions,
    inbox,
    runner: options.runner,
    queueMode: config.session.queueMode,
    limiter: new PQueue({ concurrency: config.session.maxConcurrentTurns }),
    deliver: options.deliver,
    deliverDelta: options.deliverDelta,
    logger,
  });
  const owners = new Set(config.owners);
  const intake = createIntake({
    config,
    sessions,
    inbox,
    queues,
    scrub,
    deliver: options.deliver,
    logger,
  });
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
        queues,
        sessions,
        commands,
        gateway: options.gateway,
        subagents: options.subagents(),
      });
    }
    const reply = { id: crypto.randomUUID(), text: scrub(text) };
    await options.deliver(routeOf(message), reply).catch((error: unknown) => {
      logger.warn({ err: error, session: sessionKey }, 'command reply delivery failed');
    });
    return { sessionKey, replies: [reply] };
  }

  return {
    async dispatch(message, dispatchOptions = {}) {
      const agentId = resolveAgentId(config.bindings, config.defaultAgent, message);
      const sessionKey = chatSessionKey(agentId, message);
      const parsed = parseCommand(message.text);
      if (parsed) {
        // A command is not stored: it is taken once it runs (a platform that resent it would run it twice).
        dispatchOptions.accepted?.();
        return runCommand(message, sessionKey, agentId, parsed);
      }
      return intake.accept(message, sessionKey, agentId, dispatchOptions);
    },
    async startTurn(request) {
      if (closing) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is stopping');
      const configured = config.agents[request.agentId];
      if (!configured)
        throw new SwitchboardError('GATEWAY_STATE', `agent "${request.agentId}" is not configured`);
      await sessions.ensure(request.sessionKey, { agentId: request.agentId, route: request.route });
      const done = queues.enqueue(
        {
          sessionKey: request.sessionKey,
          agentId: request.agentId,
          agent: { ...configured, ...request.agentOverrides },
          route: (await sessions.get(request.sessionKey))?.route ?? request.route,
          depth: request.depth ?? 0,
          ...(request.runTimeoutSeconds === undefined
            ? {}
            : { runTimeoutSeconds: request.runTimeoutSeconds }),
        },
        {
          entry: request.entry,
          ...(request.appended ? { stored: request.appended } : {}),
          senderId: request.senderId,
          isOwner: false,
          origin: 'runtime',
          ...(request.mode ? { mode: request.mode } : {}),
        },
      );
      return { done };
    },
    stopTurn: (sessionKey, reason) => queues.stop(sessionKey, reason),
    clearQueue: (sessionKey) => queues.clear(sessionKey),
    sessionStatus: (sessionKey) => queues.status(sessionKey),
    agentBusy: (agentId) => queues.agentBusy(agentId),
    sessionDepth: (sessionKey) => queues.depth(sessionKey),
    resume: () => intake.resume(),
    close(timeoutMs) {
      closing = true;
      intake.close();
      logger.info({}, 'draining: new messages are kept for the next start');
      return queues.close(timeoutMs);
    },
    seal: () => intake.seal(),
  };
}
