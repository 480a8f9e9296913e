import type { InboundHandler, OutboundFor } from '../../base/messages/index.js';
import type { Observation } from './observation.js';

/**
 * The router's inbound handler with each message counted and timed by its channel: one timer per
 * message, from its arrival to its answer (the end of the turn or command that answered it),
 * failed ones too. The store's operations are not timed one by one: a message makes several.
 */
export function observeInbound(observation: Observation, handler: InboundHandler): InboundHandler {
  const { messagesReceived, messageDuration } = observation.metrics.instruments;
  return (message, options) => {
    messagesReceived.inc({ channel: message.channel });
    const started = performance.now();
    const observe = () =>
      messageDuration.observe({ channel: message.channel }, (performance.now() - started) / 1000);
    const handled = handler(message, options);
    handled.then(observe, observe);
    return handled;
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
