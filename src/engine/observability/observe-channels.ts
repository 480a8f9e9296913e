import type { InboundHandler, OutboundFor } from '../../base/messages/index.js';
import type { Observation } from './observation.js';

/** The router's inbound handler with each message counted by its channel. */
export function observeInbound(observation: Observation, handler: InboundHandler): InboundHandler {
  const { messagesReceived } = observation.metrics.instruments;
  return (message, options) => {
    messagesReceived.inc({ channel: message.channel });
    return handler(message, options);
  };
}

/**
 * Each route's `Outbound` with each reply or post the platform took counted by channel; an
 * `internal` route (recorded, never sent) and a refused one are not.
 */
export function observeOutbound(observation: Observation, outboundFor: OutboundFor): OutboundFor {
  const { messagesSent } = observation.metrics.instruments;
  return (route) => {
    const outbound = outboundFor(route);
    return {
      ...outbound,
      async reply(message) {
        await outbound.reply(message);
        if (route.channel !== 'internal') messagesSent.inc({ channel: route.channel });
      },
    };
  };
}
