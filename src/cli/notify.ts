import { errorText } from '../errors/index.js';
import { createRestartSentinel, newRestartIntent } from '../gateway/restart-sentinel.js';
import { createLogger } from '../logging/index.js';
import type { DeliveryRoute } from '../messages/index.js';
import { parseRoute } from '../signals/index.js';

/**
 * `config patch --notify <route>`: a shell edit has no chat, so the operator names one. The note
 * is recorded in the config's state dir, like a note promised from chat, and the gateway posts
 * it after its next start or restart (`Gateway restarted (config-patch): <note>`).
 */

export type NotifyRoute = { ok: true; route: DeliveryRoute } | { ok: false; error: string };

/** The route syntax of the config's `routes` values: `webchat:<user>`, `slack:<channel>`, `discord:<channel>`. */
export function parseNotifyRoute(text: string): NotifyRoute {
  const route = parseRoute(text.trim());
  if (route) return { ok: true, route };
  return {
    ok: false,
    error: `--notify: ${text} is not a route (webchat:<user>, slack:<channel> or discord:<channel>); nothing was written`,
  };
}

/** Records the note; a state dir it cannot write is reported, not thrown (the edit is already written). */
export async function recordShellNote(options: {
  stateDir: string;
  route: DeliveryRoute;
  note: string | undefined;
  stats: Record<string, unknown>;
}): Promise<{ ok: true } | { ok: false; error: string }> {
  const logger = createLogger({ level: 'warn', destination: process.stderr }).logger;
  const { route } = options;
  const intent = newRestartIntent(
    {
      kind: 'config-patch',
      actor: 'cli',
      route: { channel: route.channel, chatType: route.chatType, target: route.chatId },
      ...(options.note === undefined ? {} : { message: options.note }),
      stats: options.stats,
    },
    'cli',
  );
  const sentinel = createRestartSentinel({ stateDir: options.stateDir, logger });
  try {
    // Committed: the edit is written; whichever start comes next is the restart it waits for.
    await sentinel.record([{ ...intent, status: 'committed' }]);
    return { ok: true };
  } catch (error) {
    const why = errorText(error);
    return {
      ok: false,
      error: `the change is written, but the note could not be recorded in ${sentinel.file}: ${why}`,
    };
  }
}
