import { can, resolvePrincipal } from '../../base/access/index.js';
import type { DispatchResult, InboundMessage, OutboundMessage } from '../../base/messages/index.js';
import type { CompactResult } from '../agents/index.js';
import type { ApprovalsPort, HeldCommand } from '../tools/index.js';
import type { ChatCommand } from './commands/index.js';
import { type CommandReply, commandAction, parseCommand, RescuePlans } from './commands/index.js';
import { routeOf } from './intake.js';
import { scrubEntry } from './queue-turn.js';
import type { RouterOptions } from './router-types.js';
import type { SessionQueues } from './session-queues.js';

/** What the command runner reads: the router's options and what the router made of them. */
export interface CommandRunnerOptions {
  router: RouterOptions;
  commands: readonly ChatCommand[];
  scrub(text: string): string;
  queues: SessionQueues;
}

/** The chat commands and button clicks of one router, and `/rescue`'s one pending plan. */
export class CommandRunner {
  readonly #router: RouterOptions;
  readonly #commands: readonly ChatCommand[];
  readonly #scrub: (text: string) => string;
  readonly #queues: SessionQueues;
  /** `/rescue`'s one pending plan. */
  readonly #rescuePlans = new RescuePlans();

  constructor(options: CommandRunnerOptions) {
    this.#router = options.router;
    this.#commands = options.commands;
    this.#scrub = options.scrub;
    this.#queues = options.queues;
  }

  /**
   * Answers a chat command without a model and without queueing (so `/stop` reaches a busy
   * session). An unknown command lists the ones the sender may use; an owner command from anyone
   * else is refused. The reply has secret values removed and is not written to the transcript.
   */
  async run(
    message: InboundMessage,
    sessionKey: string,
    agentId: string,
    parsed: { name: string; args: string },
  ): Promise<DispatchResult> {
    const answer = await this.#reply(message, sessionKey, agentId, parsed);
    const { text, actions } = typeof answer === 'string' ? { text: answer, actions: undefined } : answer;
    const reply: OutboundMessage = {
      id: crypto.randomUUID(),
      text: this.#scrub(text),
      // A held command's card (with buttons) is an approval request; any other answer is plain text.
      origin: actions ? 'approval' : 'command',
      ...(actions ? { actions } : {}),
      ...(message.nativeCommand === true && this.#senderOnly(parsed.name) ? { senderOnly: true } : {}),
    };
    return this.#deliver(message, sessionKey, reply);
  }

  /** Answers a message with `text` alone (a refusal): no model runs and nothing is stored. */
  tell(message: InboundMessage, sessionKey: string, text: string): Promise<DispatchResult> {
    return this.#deliver(message, sessionKey, { id: crypto.randomUUID(), text: this.#scrub(text) });
  }

  async #deliver(
    message: InboundMessage,
    sessionKey: string,
    reply: OutboundMessage,
  ): Promise<DispatchResult> {
    // A platform's own command is answered by its adapter, where the platform wants it.
    if (message.nativeCommand === true) return { sessionKey, replies: [reply] };
    await this.#router
      .outboundFor(routeOf(message))
      .reply(reply)
      .catch((error: unknown) => {
        this.#router.logger.warn({ err: error, session: sessionKey }, 'command reply delivery failed');
      });
    return { sessionKey, replies: [reply] };
  }

  /**
   * A direct message from a sender the channel does not let in (pairing on): a pairing code and
   * nothing else, whatever it says (a command included); no reply at all when there is no
   * pairing here or the sender is past the rate limit. Never stored, never a turn.
   */
  async pairing(message: InboundMessage, sessionKey: string): Promise<DispatchResult> {
    const text = await this.#router.identity?.pairingRequest(message.senderId);
    if (text === undefined) return { sessionKey, replies: [] };
    const reply: OutboundMessage = { id: crypto.randomUUID(), text };
    await this.#router
      .outboundFor(routeOf(message))
      .reply(reply)
      .catch((error: unknown) => {
        this.#router.logger.warn({ err: error, sender: message.senderId }, 'pairing reply delivery failed');
      });
    return { sessionKey, replies: [reply] };
  }

  /** An unknown command's list, an owner command's output or its refusal: for the sender alone. */
  #senderOnly(name: string): boolean {
    const command = this.#commands.find((candidate) => candidate.name === name);
    return command === undefined || command.ownerOnly === true || command.senderOnly === true;
  }

  /**
   * A click on a reply's button: decided at once by the approvals service, never stored or queued.
   * The one reply is for the adapter to show in place of the buttons (it is not posted as a new
   * message); a confirmed held command runs here and its answer follows the decision.
   */
  async action(message: InboundMessage, sessionKey: string): Promise<DispatchResult> {
    const outcome = await this.#approvals().decide({
      kind: 'action',
      value: message.action ?? '',
      by: message.senderId,
    });
    const text = outcome.confirmed
      ? `${outcome.text}\n${await this.#runConfirmed(outcome.confirmed)}`
      : outcome.text;
    const actions = outcome.actions ? { actions: outcome.actions } : {};
    const reply = {
      id: crypto.randomUUID(),
      text: this.#scrub(text),
      origin: 'approval' as const,
      ...actions,
    };
    return { sessionKey, replies: [reply] };
  }

  /** A held command its owner confirmed, run once as they typed it, in the chat they typed it in. */
  async #runConfirmed(command: HeldCommand): Promise<string> {
    const parsed = parseCommand(command.text);
    if (!parsed) return `Not a command: ${command.text}`;
    const { route } = command;
    if (route.channel === 'internal') return 'A held command has no chat to run in.';
    const message: InboundMessage = {
      channel: route.channel,
      chatType: route.chatType,
      chatId: route.chatId,
      ...(route.threadId === undefined ? {} : { threadId: route.threadId }),
      senderId: command.senderId,
      text: command.text,
      messageId: crypto.randomUUID(),
    };
    const answer = await this.#reply(message, command.sessionKey, command.agentId, parsed, true);
    return typeof answer === 'string' ? answer : answer.text;
  }

  async #reply(
    message: InboundMessage,
    sessionKey: string,
    agentId: string,
    parsed: { name: string; args: string },
    confirmed = false,
  ): Promise<CommandReply> {
    const options = this.#router;
    const commands = this.#commands;
    const principal = resolvePrincipal(options.config, message.senderId);
    const command = commands.find((candidate) => candidate.name === parsed.name);
    if (!command) {
      const names = commands
        .filter((candidate) => can(principal, commandAction(candidate)).ok)
        .map((candidate) => `/${candidate.name}`);
      return `Unknown command /${parsed.name}. Commands: ${names.join(', ')}.`;
    }
    const verdict = can(principal, commandAction(command));
    if (!verdict.ok) return `/${command.name} refused: ${verdict.error}.`;
    return command.run({
      args: parsed.args,
      message,
      sessionKey,
      route: routeOf(message),
      agentId,
      principal,
      config: options.config,
      configFile: options.configFile,
      uptimeMs: Date.now() - options.startedAt,
      queues: this.#queues,
      sessions: options.sessions,
      commands,
      gateway: options.gateway,
      subagents: options.subagents,
      approvals: this.#approvals(),
      ...(options.usage ? { usage: options.usage } : {}),
      ...(options.failover ? { failover: options.failover } : {}),
      ...(options.riskSummary ? { riskSummary: options.riskSummary } : {}),
      ...(confirmed ? { confirmed } : {}),
      ...(options.rescue ? { rescue: options.rescue } : {}),
      ...(options.identity ? { identity: options.identity } : {}),
      rescuePlans: this.#rescuePlans,
      runConfirmed: (held) => this.#runConfirmed(held),
      compact: () => this.#compact(sessionKey, agentId, message),
    });
  }

  /** `/compact` through the runner, its summary recorded like a turn's entries (secrets removed). */
  #compact(sessionKey: string, agentId: string, message: InboundMessage): Promise<CompactResult> {
    const { runner, config, sessions, logger } = this.#router;
    const agent = config.agents[agentId];
    if (!runner.compact || !agent)
      return Promise.resolve({ status: 'nothing', reason: 'no model runs here' });
    return runner.compact({
      sessionKey,
      agentId,
      agent,
      chatType: message.chatType,
      logger: logger.child({ session: sessionKey }),
      record: (entry) => sessions.append(sessionKey, scrubEntry(entry, this.#scrub)),
    });
  }

  #approvals(): ApprovalsPort {
    return this.#router.approvals ?? NO_APPROVALS;
  }
}

/** A router built without approvals (tests of routing alone): nothing waits, nothing is held. */
const NO_APPROVALS: ApprovalsPort = {
  check: async () => ({ status: 'approved', by: 'policy' }),
  decide: async () => ({ text: 'Approvals are not set up in this gateway.' }),
  waiting: () => false,
  hold: async (command) => ({ id: crypto.randomUUID(), text: `Not held: ${command.summary}` }),
};
