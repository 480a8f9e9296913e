import type { Config } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import {
  communicationPolicy,
  type DeliveryRoute,
  type OutboundFor,
  parseRoute,
  type SendOutcome,
} from '../../base/messages/index.js';
import type { SessionStore } from '../../records/sessions/index.js';

/** Posts of signals and messages in chats: to a named route, or to `user`. */
export interface Poster {
  /** Posts to a route of `routes` in config; throws naming the known routes for any other name. */
  toRoute(routeName: string, text: string): Promise<void>;
  /**
   * Posts for `user` (Suzumio's word for the human) in the chat where the human last talked to the
   * coordinator agent (`communication.coordinatorAgent`, else `defaultAgent`): its most recently
   * active session that a chat reads. Without one, in a direct chat to each id in `owners`; with
   * no owners either, the post is refused (`ok: false`, naming why).
   */
  toUser(text: string): Promise<SendOutcome>;
}

export function createPoster(options: {
  config: Config;
  sessions: SessionStore;
  outboundFor: OutboundFor;
}): Poster {
  const { config, outboundFor } = options;
  const coordinator = communicationPolicy(config).coordinator;
  const notice = (text: string) => ({ id: crypto.randomUUID(), text, notice: true });

  async function userRoutes(): Promise<DeliveryRoute[]> {
    // The list is newest first: the first page with a match has it (pages are read until one does).
    const { sessions } = await options.sessions.list({
      limit: 1,
      where: (session) => session.agentId === coordinator && session.route.channel !== 'internal',
    });
    const latest = sessions[0];
    if (latest) return [latest.route];
    return config.owners.flatMap((owner): DeliveryRoute[] => {
      const match = /^(webchat|slack|discord):(.+)$/.exec(owner);
      if (!match?.[1] || !match[2]) return [];
      return [{ channel: match[1] as DeliveryRoute['channel'], chatType: 'direct', chatId: match[2] }];
    });
  }

  return {
    async toRoute(routeName, text) {
      const target = config.routes[routeName];
      const route = target === undefined ? undefined : parseRoute(target);
      if (!route) {
        const known = Object.keys(config.routes).join(', ') || 'none';
        throw new SwitchboardError('SIGNAL_ROUTE_UNKNOWN', `unknown route ${routeName} (routes: ${known})`);
      }
      await outboundFor(route).reply(notice(text));
    },
    async toUser(text) {
      const routes = await userRoutes();
      if (routes.length === 0) {
        const reason = `no chat reaches the user: agent ${coordinator} has no chat session yet and owners lists no one`;
        return { ok: false, reason };
      }
      for (const route of routes) await outboundFor(route).reply(notice(text));
      return { ok: true };
    },
  };
}
