import { communicationPolicy } from '../base/messages/index.js';
import { createSignalDelivery, type SignalDelivery, type SignalInput } from '../engine/signals/index.js';
import {
  createMessageLog,
  createToolpacks,
  loadConfiguredToolpacks,
  type MessageLog,
  type Toolpacks,
} from '../extensions/toolpacks/index.js';
import type { Base } from './gateway-types.js';
import type { Part } from './part.js';
import type { TurnPort } from './turn-port.js';

/** What the signals part starts: delivery (its `send` through the message log) and the log. */
export interface Signals {
  signals: SignalDelivery;
  messages: MessageLog;
}

/**
 * Signal delivery (it reaches the router only through the turn port). Its `send` goes through the
 * message log, so every message (tool, Tools page, controller) is seen once. The stopping signal
 * stops delivery at once: wake turns the stop interrupts keep their signals for the next start;
 * the drain (the `turns` part) lets the others settle.
 */
export function signalsPart(): Part<{ base: Base; turns: TurnPort; stopping: AbortSignal }, Signals> {
  return {
    name: 'signals',
    async start({ base, turns, stopping }) {
      const { config, logger } = base;
      const signals = createSignalDelivery({
        config,
        store: base.store,
        sessions: base.sessions,
        turns,
        outboundFor: base.channels.outboundFor,
        logger: logger.child({ component: 'signals' }),
      });
      stopping.addEventListener('abort', () => signals.stop(), { once: true });
      const messages = createMessageLog({ coordinatorAgent: communicationPolicy(config).coordinator });
      return { signals: { ...signals, send: messages.watch(signals.send) }, messages };
    },
    async stop() {},
  };
}

/** The configured toolpacks over signal delivery; stopped (runners and controllers) after the drain. */
export function toolpacksPart(): Part<{ base: Base } & Signals, Toolpacks> {
  let toolpacks: Toolpacks | undefined;
  return {
    name: 'toolpacks',
    async start({ base, signals, messages }) {
      const { config, logger } = base;
      toolpacks = await createToolpacks({
        config,
        configPath: base.configPath,
        stateDir: base.stateDir,
        loaded: await loadConfiguredToolpacks(config, base.options.loaded.path),
        store: base.store,
        runs: base.runs,
        // Delivery checks a signal's shape before it queues or posts it.
        signals: {
          ...signals,
          storeDb: {
            signals: () =>
              signals.queue.rows().map(({ signal, status, deliveredAt }) => ({
                ...signal,
                status,
                ...(deliveredAt === undefined ? {} : { deliveredAt }),
              })),
            messages: () => messages.rows(),
            activations: () => signals.activations(),
          },
          record: (signal, source, agentId) => {
            // A runner's signal counts as a useful effect of its agent's wake turn (see supervision.ts).
            if (agentId !== undefined) signals.supervision.signalRecorded(agentId, signal);
            return signals.record(signal as SignalInput, source);
          },
        },
        messageRetry: base.options.toolpackMessageRetry,
        logger: logger.child({ component: 'toolpacks' }),
      });
      return toolpacks;
    },
    async stop() {
      await toolpacks?.stop();
    },
  };
}
