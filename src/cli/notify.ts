import { fail, ok, type Result } from '../base/errors/index.js';
import type { DeliveryRoute } from '../base/messages/index.js';
import { parseRoute } from '../base/messages/index.js';

/**
 * `config patch --notify <route>`: a shell edit has no chat, so the operator names one. The note
 * is recorded in the config's state dir, like a note promised from chat, and the gateway posts
 * it after its next start or restart (`Gateway restarted (config-patch): <note>`); see
 * `recordShellNote` in the gateway.
 */

/** The route syntax of the config's `routes` values: `webchat:<user>`, `slack:<channel>`, `discord:<channel>`. */
export function parseNotifyRoute(text: string): Result<DeliveryRoute> {
  const route = parseRoute(text.trim());
  if (route) return ok(route);
  return fail(
    `--notify: ${text} is not a route (webchat:<user>, slack:<channel> or discord:<channel>); nothing was written`,
  );
}
