import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type {
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundMessage,
  OutboundMessage,
} from '../../src/base/messages/index.js';
import { createInbox } from '../../src/engine/routing/inbox.js';
import { type ChatCommand, createRouter, type Router } from '../../src/engine/routing/index.js';
import type { GatewayControl, SubagentsPort } from '../../src/engine/tools/index.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { createGatedRunner } from './gated-runner.js';
import { outboundTo } from './outbound.js';

const logger = createLogger({ level: 'silent' }).logger;

export interface RouterRigOptions {
  /** The config's fields (`session`, `owners`, `bindings`, `agents`…); agents `main` and `ops` by default. */
  config?: Record<string, unknown>;
  /** Shares a store with an earlier rig: a restart in this process. */
  store?: Store;
  commands?: readonly ChatCommand[];
  subagents?: SubagentsPort;
}

/**
 * A router in this process, as the gateway builds it, on the memory store (or one handed over),
 * with the gated runner (each turn is held open until the test releases it) and a record of
 * everything delivered to chats. No HTTP, no channel adapter.
 */
export async function createRouterRig(options: RouterRigOptions = {}) {
  const validated = validateConfig({ agents: { main: {}, ops: {} }, ...options.config });
  if (!validated.ok) throw new Error(JSON.stringify(validated.error));
  const store = options.store ?? (await createStore({ url: 'memory://', stateDir: '/nonexistent', logger }));
  const sessions = createSessionStore({ store });
  const gated = createGatedRunner();
  const delivered: { route: DeliveryRoute; message: OutboundMessage }[] = [];
  const router: Router = createRouter({
    config: validated.value,
    configFile: { path: undefined, hash: 'test-config-hash' },
    sessions,
    store,
    runner: gated.runner,
    outboundFor: outboundTo({
      reply: (route, message) => {
        delivered.push({ route, message });
      },
    }),
    logger,
    startedAt: Date.now(),
    ...(options.commands ? { commands: options.commands } : {}),
    gateway: {} as GatewayControl,
    subagents: options.subagents ?? ({} as SubagentsPort),
  });
  return {
    router,
    gated,
    store,
    sessions,
    /** The inbox the router keeps its accepted messages in (same store namespace). */
    inbox: createInbox({ store }),
    delivered,
    /** The texts delivered to chats so far. */
    deliveredTexts: () => delivered.map((entry) => entry.message.text),
    /**
     * Dispatches `message`; `accepted` resolves once the router has taken it (stored in the inbox
     * and queued, or a command about to run), `done` when the turn that answers it ends.
     */
    send(message: InboundMessage, dispatchOptions: Omit<DispatchOptions, 'accepted'> = {}) {
      let accept = () => {};
      const accepted = new Promise<void>((resolve) => {
        accept = resolve;
      });
      const done: Promise<DispatchResult> = router.dispatch(message, {
        ...dispatchOptions,
        accepted: accept,
      });
      return { accepted, done };
    },
    /** Closes the router (drain of `timeoutMs`) and, unless it was handed over, the store. */
    async close(timeoutMs = 50): Promise<void> {
      await router.close(timeoutMs);
      await router.seal();
      if (!options.store) await store.close();
    },
  };
}

export type RouterRig = Awaited<ReturnType<typeof createRouterRig>>;

/** A Slack thread message from `senderId`; a fresh message id unless given. */
export function slackMessage(text: string, overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    channel: 'slack',
    chatType: 'channel',
    chatId: 'C1',
    threadId: '1.1',
    senderId: 'slack:U1',
    text,
    messageId: crypto.randomUUID(),
    ...overrides,
  };
}

/** The session key of `slackMessage`'s default thread for agent `main`. */
export const THREAD_KEY = 'agent:main:slack:channel:C1:thread:1.1';

/** A runtime entry (a signal, an announcement) for `sessionKey`. */
export function runtimeTurn(sessionKey: string, text: string, agentId = 'main') {
  return {
    sessionKey,
    agentId,
    route: { channel: 'internal' as const, chatType: 'direct' as const, chatId: sessionKey },
    entry: { role: 'system' as const, text },
    senderId: 'system:signals',
  };
}

/** The texts of the messages a turn answered (at its start). */
export const answered = (request: { messages: { text: string }[] }) =>
  request.messages.map((entry) => entry.text);
