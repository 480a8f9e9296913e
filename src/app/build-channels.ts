import path from 'node:path';
import {
  type ChannelAdapter,
  type ChannelSupervisor,
  createChannelSupervisor,
  createWebchatAdapter,
  type InboundFileStore,
  loadDiscordAdapter,
  loadSlackAdapter,
  type SlackAdapter,
  type WebchatAdapter,
} from '../channels/index.js';
import type { Config } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute, OutboundDelta, OutboundFile, OutboundMessage } from '../messages/index.js';
import { BUILTIN_COMMANDS } from '../routing/index.js';
import type { Store } from '../store/index.js';
import { createStoreChannelMemory } from './channel-memory.js';

/** The configured channel adapters, and delivery to them by route. */
export interface GatewayChannels {
  adapters: readonly ChannelAdapter[];
  webchat: WebchatAdapter | undefined;
  slack: SlackAdapter | undefined;
  /** Sends a reply or post; an `internal` route is recorded elsewhere, never sent. */
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  /** Sends a file to the route's chat; false when its channel takes no files. */
  deliverFile(route: DeliveryRoute, file: OutboundFile): Promise<boolean>;
  /** Sends a stream part, where the adapter streams; otherwise nothing. */
  deliverDelta(route: DeliveryRoute, id: string, delta: OutboundDelta['delta']): void;
  /** Shows a tool status line, where the adapter streams; otherwise nothing. */
  deliverStatus(route: DeliveryRoute, text: string): void;
  /** Keeps the adapters connected: Slack and Discord retry by their `reconnect` settings. */
  supervise(logger: Logger): ChannelSupervisor;
}

export async function createChannels(
  config: Config,
  store: Store,
  logger: Logger,
  files?: InboundFileStore,
): Promise<GatewayChannels> {
  const webchat = config.channels.webchat.enabled
    ? createWebchatAdapter({
        logger: logger.child({ channel: 'webchat' }),
        filesDir: path.join(path.resolve(config.stateDir), 'webchat-files'),
      })
    : undefined;
  const discord = config.channels.discord
    ? await loadDiscordAdapter({
        config: config.channels.discord,
        logger: logger.child({ channel: 'discord' }),
        memory: createStoreChannelMemory({ store, channel: 'discord' }),
        ...(files ? { files } : {}),
        // The router's table (it is built with the same default): registered as application commands.
        commands: BUILTIN_COMMANDS,
      })
    : undefined;
  const slack = config.channels.slack
    ? await loadSlackAdapter({
        config: config.channels.slack,
        logger: logger.child({ channel: 'slack' }),
        memory: createStoreChannelMemory({ store, channel: 'slack' }),
        ...(files ? { files } : {}),
      })
    : undefined;
  const adapters = [webchat, discord, slack].filter((adapter) => adapter !== undefined);
  const adapterFor = (route: DeliveryRoute) => adapters.find((adapter) => adapter.name === route.channel);
  return {
    adapters,
    webchat,
    slack,
    async deliver(route, message) {
      if (route.channel === 'internal') return;
      const adapter = adapterFor(route);
      if (!adapter)
        throw new SwitchboardError('GATEWAY_NO_CHANNEL', `no channel adapter for ${route.channel}`);
      await adapter.send(route, message);
    },
    async deliverFile(route, file) {
      const adapter = route.channel === 'internal' ? undefined : adapterFor(route);
      if (adapter?.sendFile === undefined) return false;
      await adapter.sendFile(route, file);
      return true;
    },
    deliverDelta(route, id, delta) {
      adapterFor(route)?.sendDelta?.(route, { id, delta });
    },
    deliverStatus(route, text) {
      adapterFor(route)?.sendStatus?.(route, text);
    },
    supervise: (supervisorLogger) =>
      createChannelSupervisor({
        channels: adapters.map((adapter) => ({ adapter, reconnect: reconnectOf(config, adapter.name) })),
        logger: supervisorLogger,
      }),
  };
}

function reconnectOf(config: Config, name: string) {
  return name === 'slack' || name === 'discord' ? config.channels[name]?.reconnect : undefined;
}
