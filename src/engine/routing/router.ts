import { can, isOwnerIdentity, resolvePrincipal } from '../../base/access/index.js';
import { createSecretScrubber } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import type { DispatchOptions, DispatchResult, InboundMessage } from '../../base/messages/index.js';
import type { RuntimeTurnRequest } from '../../records/sessions/index.js';
import { sessionForMessage } from './bindings.js';
import { BUILTIN_COMMANDS, parseCommand } from './commands/index.js';
import { createInbox } from './inbox.js';
import { createIntake, type Intake } from './intake.js';
import type { QueueStatus } from './queue-types.js';
import type { Router, RouterOptions } from './router-types.js';
import { CommandRunner } from './run-command.js';
import { createSessionQueues, type SessionQueues } from './session-queues.js';
import { TurnSlots } from './turn-slots.js';

/**
 * The router: a command is answered at once (`run-command.ts`), a user message goes through the
 * intake (inbox, then its session's queue), a runtime turn straight to the queue.
 */
export function createRouter(options: RouterOptions): Router {
  return new MessageRouter(options);
}

/**
 * The queues, the intake and the command runner of one gateway, and whether it is closing: private.
 * Its members are bound: the app hands `dispatch` and `queueDepth` on as functions.
 */
class MessageRouter implements Router {
  readonly #options: RouterOptions;
  readonly #queues: SessionQueues;
  readonly #intake: Intake;
  readonly #commands: CommandRunner;
  /** Runtime turns are refused: the gateway is stopping. */
  #closing = false;

  constructor(options: RouterOptions) {
    const { config, sessions, logger } = options;
    const scrub = createSecretScrubber(options.secrets ?? []);
    const inbox = createInbox({ store: options.store });
    this.#options = options;
    this.#queues = createSessionQueues({
      scrub,
      sessions,
      inbox,
      runner: options.runner,
      queueMode: config.session.queueMode,
      slots: new TurnSlots(config.session.maxConcurrentTurns),
      outboundFor: options.outboundFor,
      logger,
    });
    this.#intake = createIntake({
      config,
      sessions,
      inbox,
      queues: this.#queues,
      scrub,
      outboundFor: options.outboundFor,
      logger,
    });
    this.#commands = new CommandRunner({
      router: options,
      commands: options.commands ?? BUILTIN_COMMANDS,
      scrub,
      queues: this.#queues,
    });
  }

  readonly dispatch = async (
    message: InboundMessage,
    dispatchOptions: DispatchOptions = {},
  ): Promise<DispatchResult> => {
    const { agentId, sessionKey } = sessionForMessage(this.#options.config, message);
    if (message.unknownSender === true) {
      dispatchOptions.accepted?.();
      return this.#commands.pairing(message, sessionKey);
    }
    if (message.action !== undefined) {
      dispatchOptions.accepted?.();
      return this.#commands.action(message, sessionKey);
    }
    const parsed = parseCommand(message.text);
    if (!parsed) {
      const refused = this.#agentRefusal(message, agentId);
      if (refused === undefined) return this.#intake.accept(message, sessionKey, agentId, dispatchOptions);
      dispatchOptions.accepted?.();
      return this.#commands.tell(message, sessionKey, refused);
    }
    // A command is not stored: it is taken once it runs (a platform that resent it would run it twice).
    dispatchOptions.accepted?.();
    return this.#commands.run(message, sessionKey, agentId, parsed);
  };

  /**
   * Queues a runtime entry in its session (created when new, with `route`). It runs as the agent's
   * `runtimeAs` identity when configured (an owner turn when that is an owner: owner-only tools,
   * approvals follow it), else as the request's sender, never an owner turn.
   * Resolves once queued; `done` resolves when the turn that answers it ends.
   */
  readonly startTurn = async (request: RuntimeTurnRequest): Promise<{ done: Promise<DispatchResult> }> => {
    const { config, sessions } = this.#options;
    if (this.#closing) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is stopping');
    const configured = config.agents[request.agentId];
    if (!configured)
      throw new SwitchboardError('GATEWAY_STATE', `agent "${request.agentId}" is not configured`);
    await sessions.ensure(request.sessionKey, { agentId: request.agentId, route: request.route });
    const done = this.#queues.enqueue(
      {
        sessionKey: request.sessionKey,
        agentId: request.agentId,
        agent: { ...configured, ...request.agentOverrides },
        route: (await sessions.get(request.sessionKey))?.route ?? request.route,
        depth: request.depth ?? 0,
        ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
      },
      {
        entry: request.entry,
        ...(request.appended ? { stored: request.appended } : {}),
        ...(request.resumed ? { resumed: true } : {}),
        senderId: configured.runtimeAs ?? request.senderId,
        ...(request.chargedTo === undefined ? {} : { chargedTo: request.chargedTo }),
        isOwner: configured.runtimeAs !== undefined && isOwnerIdentity(config, configured.runtimeAs),
        origin: 'runtime',
        ...(request.mode ? { mode: request.mode } : {}),
      },
    );
    return { done };
  };

  /** Why the sender's role may not reach this agent (the message is not stored, no model runs), or undefined. */
  #agentRefusal(message: InboundMessage, agentId: string): string | undefined {
    const verdict = can(resolvePrincipal(this.#options.config, message.senderId), {
      kind: 'agent',
      id: agentId,
    });
    return verdict.ok ? undefined : `Not sent to agent ${agentId}: ${verdict.error}.`;
  }

  readonly stopTurn = (sessionKey: string, reason: string): boolean => {
    return this.#queues.stop(sessionKey, reason);
  };

  readonly clearQueue = (sessionKey: string): number => {
    return this.#queues.clear(sessionKey);
  };

  readonly sessionStatus = (sessionKey: string): QueueStatus => {
    return this.#queues.status(sessionKey);
  };

  readonly agentBusy = (agentId: string): boolean => {
    return this.#queues.agentBusy(agentId);
  };

  readonly sessionDepth = (sessionKey: string): number => {
    return this.#queues.depth(sessionKey);
  };

  readonly queueDepth = (): number => {
    return this.#queues.totalDepth();
  };

  readonly resume = (): Promise<number> => {
    return this.#intake.resume();
  };

  readonly close = (timeoutMs: number): Promise<void> => {
    this.#closing = true;
    this.#intake.close();
    this.#options.logger.info({}, 'draining: new messages are kept for the next start');
    const approvals = this.#options.approvals;
    return this.#queues.close(timeoutMs, approvals && ((sessionKey) => approvals.waiting(sessionKey)));
  };

  readonly seal = (): Promise<void> => {
    return this.#intake.seal();
  };
}
