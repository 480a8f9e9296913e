import type { DeliveryRoute, InboundHandler, OutboundMessage } from '../messages/index.js';
import type { Observation } from './observation.js';

/** The router's inbound handler with each message counted by its channel. */
export function observeInbound(observation: Observation, handler: InboundHandler): InboundHandler {
  const { messagesReceived } = observation.metrics.instruments;
  return (message, options) => {
    messagesReceived.inc({ channel: message.channel });
    return handler(message, options);
  };
}

type Deliver = (route: DeliveryRoute, message: OutboundMessage) => Promise<void>;

/**
 * Delivery with each message the platform took counted by channel; an `internal` route (recorded,
 * never sent) and a refused delivery are not.
 */
export function observeDeliver(observation: Observation, deliver: Deliver): Deliver {
  const { messagesSent } = observation.metrics.instruments;
  return async (route, message) => {
    await deliver(route, message);
    if (route.channel !== 'internal') messagesSent.inc({ channel: route.channel });
  };
}
