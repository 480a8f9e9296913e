import type {
  DeliveryRoute,
  OutboundFile,
  OutboundFor,
  OutboundMessage,
} from '../../src/base/messages/index.js';

/** What a test does with each kind of output, told the route it went to; a kind left out is dropped. */
export interface OutboundHandlers {
  reply?(route: DeliveryRoute, message: OutboundMessage): Promise<void> | void;
  delta?(route: DeliveryRoute, id: string, delta: string): void;
  status?(route: DeliveryRoute, text: string): void;
  /** False (the default without it): the route's channel takes no files. */
  file?(route: DeliveryRoute, file: OutboundFile): Promise<boolean> | boolean;
}

/** An `OutboundFor` whose outputs go to the test's handlers (a fake channel that records or fails). */
export function outboundTo(handlers: OutboundHandlers): OutboundFor {
  return (route) => ({
    reply: async (message) => {
      await handlers.reply?.(route, message);
    },
    delta: (id, delta) => handlers.delta?.(route, id, delta),
    status: (text) => handlers.status?.(route, text),
    file: async (file) => (await handlers.file?.(route, file)) ?? false,
  });
}
