import { SwitchboardError } from '../../base/errors/index.js';
import type { DeliveryRoute, Outbound, OutboundFor } from '../../base/messages/index.js';
import type { ChannelAdapter } from './types.js';

/**
 * The `Outbound` of each route over the adapters serving it (bolt-js's `createSay`, per route).
 * An `internal` route (a sub-agent's, recorded in its transcript) sends nothing; a route whose
 * platform no adapter serves is refused when a reply is sent, and takes no deltas, status lines or files.
 */
export function createOutboundFor(adapters: readonly ChannelAdapter[]): OutboundFor {
  return (route: DeliveryRoute): Outbound => {
    const adapter =
      route.channel === 'internal'
        ? undefined
        : adapters.find((candidate) => candidate.name === route.channel);
    return {
      async reply(message) {
        if (route.channel === 'internal') return;
        if (!adapter)
          throw new SwitchboardError('GATEWAY_NO_CHANNEL', `no channel adapter for ${route.channel}`);
        await adapter.send(route, message);
      },
      delta(id, delta) {
        adapter?.sendDelta?.(route, { id, delta });
      },
      status(text) {
        adapter?.sendStatus?.(route, text);
      },
      async file(file) {
        if (adapter?.sendFile === undefined) return false;
        await adapter.sendFile(route, file);
        return true;
      },
    };
  };
}
