import { randomUUID } from 'node:crypto';
import { type AccessConfig, can, describePrincipal, resolvePrincipal } from '../../base/access/index.js';
import type { Config } from '../../base/config/index.js';
import { errorText, fail, ok } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { InboundMessage, OutboundFor } from '../../base/messages/index.js';
import { type Router, sessionForMessage } from '../../engine/routing/index.js';
import { type SessionRecord, type SessionStore, subagentDepth } from '../../records/sessions/index.js';
import type { LinkedSessionView } from './contracts.js';
import type { LinkedSessionsPort } from './routes/webchat-linked.js';
import type { SessionTitles } from './session-titles.js';
import { readMessages } from './webchat-history.js';

const MAX_LINKED = 100;
const PLATFORMS = new Set(['slack', 'discord']);

/** The identity a Slack or Discord direct chat is with (`slack:U0123`); undefined for any other session. */
function chatIdentity(record: Pick<SessionRecord, 'key' | 'route'>): string | undefined {
  const { route } = record;
  if (!PLATFORMS.has(route.channel) || route.chatType !== 'direct' || subagentDepth(record.key) > 0)
    return undefined;
  return `${route.channel}:${route.chatId}`;
}

/**
 * A person's linked sessions: their Slack and Discord direct chats (a chat with one of their
 * identities), which their web chat lists, reads and continues. A channel thread is not one: it
 * is shared with the channel, and its transcript holds others' words. A message typed in the web
 * chat goes through the router as that person (`webchat:<user>`) into the same session: the agent
 * and the route stay the session's, so the answer is also posted to the platform chat, after the
 * typed text, which is posted there first as the bot (`From the web chat: …`) so the platform
 * chat reads whole. Nothing about the session's key or route changes, so an unlink only takes it
 * off the list.
 */
export function createLinkedSessions(options: {
  sessions: SessionStore;
  router: Pick<Router, 'dispatch' | 'sessionStatus'>;
  config: AccessConfig & Pick<Config, 'bindings' | 'defaultAgent'>;
  titles?: SessionTitles | undefined;
  outboundFor: OutboundFor;
  scrub(text: string): string;
  logger: Logger;
}): LinkedSessionsPort {
  const { sessions, router, config, titles, scrub, logger } = options;
  const viewOf = async (record: SessionRecord, identity: string): Promise<LinkedSessionView> => {
    const title = await titles?.title(record);
    return {
      sessionKey: record.key,
      platform: record.route.channel as LinkedSessionView['platform'],
      identity,
      ...(title === undefined ? {} : { title }),
      agentId: record.agentId,
      lastActivityAt: record.lastActivityAt,
      transcriptLength: record.transcriptLength,
      status: router.sessionStatus(record.key),
    };
  };
  return {
    async list(senderId) {
      const { personId } = resolvePrincipal(config, senderId);
      const person = personId === undefined ? undefined : config.people[personId];
      const identities = new Set(person?.identities ?? []);
      if (identities.size === 0) return [];
      const page = await sessions.list({
        limit: MAX_LINKED,
        where: (session) => identities.has(chatIdentity(session) ?? ''),
      });
      return Promise.all(page.sessions.map((record) => viewOf(record, chatIdentity(record) ?? '')));
    },
    async check(senderId, key) {
      const record = await sessions.get(key);
      const identity = record && chatIdentity(record);
      if (identity === undefined)
        return fail({ status: 404, message: `no Slack or Discord direct chat ${key}` });
      const caller = resolvePrincipal(config, senderId);
      const owner = resolvePrincipal(config, identity);
      if (caller.personId !== undefined && caller.personId === owner.personId) return ok(true);
      const seen = can(caller, { kind: 'see', of: owner });
      const message = seen.ok
        ? `${describePrincipal(caller)} may not continue ${key} from the web chat: it is ${identity}'s, and the web chat continues its own person's direct chats only (people.<id>.identities); an owner posts into it from the Sessions page`
        : seen.error;
      return fail({ status: 403, message });
    },
    async history(key, read) {
      const status = router.sessionStatus(key);
      const page = await readMessages(sessions, scrub, { sessionKey: key, ...read });
      return { sessionKey: key, status, messages: page.messages, ...(page.next ? { next: page.next } : {}) };
    },
    async continue(key, { text, senderId }) {
      const record = await sessions.get(key);
      if (!record) return fail({ status: 404, message: `no Slack or Discord direct chat ${key}` });
      const { route } = record;
      const message: InboundMessage = {
        channel: route.channel as InboundMessage['channel'],
        chatType: 'direct',
        chatId: route.chatId,
        ...(route.threadId === undefined ? {} : { threadId: route.threadId }),
        senderId,
        text,
        messageId: `webchat-linked:${randomUUID()}`,
      };
      // The router picks the session: the bindings must still send this chat to it.
      const routed = sessionForMessage(config, message).sessionKey;
      if (routed !== key)
        return fail({
          status: 409,
          message: `the bindings now send this chat to ${routed}, not ${key}: continue it there`,
        });
      try {
        await options.outboundFor(route).reply({ id: randomUUID(), text: `From the web chat: ${text}` });
      } catch (error) {
        // The turn still runs: its answer is kept in the transcript and comes back to the web chat.
        logger.warn({ session: key, err: scrub(errorText(error)) }, 'linked session: typed text not posted');
      }
      const result = await router.dispatch(message);
      return ok({
        sessionKey: result.sessionKey,
        replies: result.replies.map(({ id, text: reply }) => ({ id, text: reply })),
      });
    },
  };
}
