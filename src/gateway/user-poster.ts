import type { Config } from '../config/index.js';
import type { DeliveryRoute, OutboundMessage } from '../messages/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { CoreSendResult } from '../toolpacks/index.js';

/**
 * Posts for `user` (Suzumio's word for the human) in the chat where the human last talked to the
 * coordinator agent (`communication.coordinatorAgent`, else `defaultAgent`): its most recently
 * active session that a chat reads. Without one, in a direct chat to each id in `owners`; with
 * no owners either, the post is refused (`ok: false`, naming why).
 */
export function createUserPoster(options: {
  config: Config;
  sessions: SessionStore;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
}): (text: string) => Promise<CoreSendResult> {
  const { config } = options;
  const coordinator = config.communication.coordinatorAgent ?? config.defaultAgent;

  async function userRoutes(): Promise<DeliveryRoute[]> {
    const chats = (await options.sessions.list()).filter(
      (session) => session.agentId === coordinator && session.route.channel !== 'internal',
    );
    const latest = chats[0];
    if (latest) return [latest.route];
    return config.owners.flatMap((owner): DeliveryRoute[] => {
      const match = /^(webchat|slack|discord):(.+)$/.exec(owner);
      if (!match?.[1] || !match[2]) return [];
      return [{ channel: match[1] as DeliveryRoute['channel'], chatType: 'direct', chatId: match[2] }];
    });
  }

  return async (text) => {
    const routes = await userRoutes();
    if (routes.length === 0) {
      const reason = `no chat reaches the user: agent ${coordinator} has no chat session yet and owners lists no one`;
      return { ok: false, reason };
    }
    for (const route of routes) await options.deliver(route, { id: crypto.randomUUID(), text, notice: true });
    return { ok: true };
  };
}
