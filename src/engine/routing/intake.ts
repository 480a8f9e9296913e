import { SwitchboardError } from '../../base/errors/index.js';
import type {
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundMessage,
} from '../../base/messages/index.js';
import { recordContext } from './intake-context.js';
import { resumeInbox } from './intake-resume.js';
import { type IntakeOptions, type IntakeState, queueItem, RECENT_ENTRIES } from './intake-state.js';

export type { IntakeOptions } from './intake-state.js';

/**
 * How a user message becomes a turn: stored in the inbox first (durable), then queued in its
 * session's queue; while the gateway closes, only stored (answered after the next start, and the
 * chat is told). `resume` queues what the last process left; `seal` waits for the writes in flight.
 */
export function createIntake(options: IntakeOptions) {
  const state: IntakeState = {
    options,
    owners: new Set(options.config.owners),
    closing: false,
    sealed: false,
    accepting: new Set(),
    addedHere: new Set(),
  };
  return {
    /** Stores and queues `message`; `accepted` is called once it is durable, the promise resolves when its turn ends. */
    accept(
      message: InboundMessage,
      sessionKey: string,
      agentId: string,
      dispatchOptions: DispatchOptions = {},
    ): Promise<DispatchResult> {
      if (state.sealed)
        throw new SwitchboardError(
          'GATEWAY_STATE',
          'the gateway is stopping; send the message again shortly',
        );
      const stored = store(state, message, sessionKey, agentId, dispatchOptions);
      state.accepting.add(stored);
      void stored.catch(() => {}).finally(() => state.accepting.delete(stored));
      return stored;
    },
    resume: () => resumeInbox(state),
    /** From now on messages are stored and kept for the next start. */
    close(): void {
      state.closing = true;
    },
    async seal(): Promise<void> {
      state.sealed = true;
      await Promise.allSettled([...state.accepting]);
    },
  };
}

async function store(
  state: IntakeState,
  message: InboundMessage,
  sessionKey: string,
  agentId: string,
  { accepted, redelivery }: DispatchOptions,
): Promise<DispatchResult> {
  const { config, sessions, inbox, logger } = state.options;
  const agent = config.agents[agentId];
  // Validation guarantees that bindings and defaultAgent name configured agents.
  if (!agent) throw new SwitchboardError('GATEWAY_STATE', `agent "${agentId}" is not configured`);
  const route = routeOf(message);
  if (redelivery && (await alreadyKept(state, sessionKey, message.messageId))) {
    logger.info({ session: sessionKey, messageId: message.messageId }, 'redelivered message already kept');
    accepted?.();
    return { sessionKey, replies: [] };
  }
  const session = await sessions.ensure(sessionKey, { agentId, route });
  await recordContext(state, session, message);
  // Durable before anything else: a message the platform saw acknowledged is answered, whatever comes.
  const item = await inbox.add({
    sessionKey,
    agentId,
    route,
    entry: {
      role: 'user',
      text: state.options.scrub(message.text),
      senderId: message.senderId,
      messageId: message.messageId,
      ...(message.files?.length ? { files: message.files } : {}),
    },
  });
  state.addedHere?.add(item.id);
  accepted?.();
  if (!state.closing) return queueItem(state, item, agent);
  const notice = await state.options.queues.tellKept({ sessionKey, route });
  return { sessionKey, replies: [notice], status: 'interrupted' };
}

/** A redelivered message the inbox or the session's recent transcript already holds. */
async function alreadyKept(state: IntakeState, sessionKey: string, messageId: string): Promise<boolean> {
  const waiting = await state.options.inbox.list();
  if (waiting.some((item) => item.sessionKey === sessionKey && item.entry.messageId === messageId))
    return true;
  const tail = await state.options.sessions.transcript(sessionKey, { last: RECENT_ENTRIES });
  return tail.some((entry) => entry.role === 'user' && entry.messageId === messageId);
}

export function routeOf(message: InboundMessage): DeliveryRoute {
  return {
    channel: message.channel,
    chatType: message.chatType,
    chatId: message.chatId,
    ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
  };
}
