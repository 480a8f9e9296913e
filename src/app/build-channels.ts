import path from 'node:path';
import { type Config, collectSecretValues, createSecretScrubber } from '../base/config/index.js';
import type { Logger } from '../base/logging/index.js';
import type { OutboundFor } from '../base/messages/index.js';
import { BUILTIN_COMMANDS } from '../engine/routing/index.js';
import type { Store } from '../records/store/index.js';
import {
  type ChannelAdapter,
  type ChannelSupervisor,
  createChannelSupervisor,
  createOutboundFor,
  createWebchatAdapter,
  type InboundFileStore,
  loadDiscordAdapter,
  loadSlackAdapter,
  type SlackAdapter,
  type WebchatAdapter,
} from '../surfaces/channels/index.js';
import { createWebchatJournal, type WebchatJournalReader } from '../surfaces/control/index.js';
import { createStoreChannelMemory } from './channel-memory.js';

/** The configured channel adapters, and each route's `Outbound` over them. */
export interface GatewayChannels {
  adapters: readonly ChannelAdapter[];
  webchat: WebchatAdapter | undefined;
  /** What the web chat showed that transcripts do not keep (commands, approvals), for its history. */
  webchatJournal: WebchatJournalReader | undefined;
  slack: SlackAdapter | undefined;
  /** Each route's `Outbound`: replies, posts, deltas, status lines, files. */
  outboundFor: OutboundFor;
  /** Keeps the adapters connected: Slack and Discord retry by their `reconnect` settings. */
  supervise(logger: Logger): ChannelSupervisor;
}

export async function createChannels(
  config: Config,
  store: Store,
  logger: Logger,
  files?: InboundFileStore,
): Promise<GatewayChannels> {
  const webchatJournal = config.channels.webchat.enabled
    ? createWebchatJournal({ store, scrub: createSecretScrubber(collectSecretValues(config)) })
    : undefined;
  const webchat = webchatJournal
    ? createWebchatAdapter({
        logger: logger.child({ channel: 'webchat' }),
        filesDir: path.join(path.resolve(config.stateDir), 'webchat-files'),
        journal: webchatJournal,
      })
    : undefined;
  const discord = config.channels.discord
    ? await loadDiscordAdapter({
        config: heardPeople(config, config.channels.discord, 'discord'),
        logger: logger.child({ channel: 'discord' }),
        memory: createStoreChannelMemory({ store, channel: 'discord' }),
        ...(files ? { files } : {}),
        // The router's table (it is built with the same default): registered as application commands.
        commands: BUILTIN_COMMANDS,
      })
    : undefined;
  const slack = config.channels.slack
    ? await loadSlackAdapter({
        config: heardPeople(config, config.channels.slack, 'slack'),
        logger: logger.child({ channel: 'slack' }),
        memory: createStoreChannelMemory({ store, channel: 'slack' }),
        ...(files ? { files } : {}),
      })
    : undefined;
  const adapters = [webchat, discord, slack].filter((adapter) => adapter !== undefined);
  return {
    adapters,
    webchat,
    webchatJournal,
    slack,
    outboundFor: createOutboundFor(adapters),
    supervise: (supervisorLogger) =>
      createChannelSupervisor({
        channels: adapters.map((adapter) => ({ adapter, reconnect: reconnectOf(config, adapter.name) })),
        logger: supervisorLogger,
      }),
  };
}

/**
 * A platform's settings with every person's identity on it added to `allowFrom`: a person in
 * `people` (a link, an approved pairing) is heard in direct messages like a listed user.
 */
export function heardPeople<Settings extends { allowFrom: string[] }>(
  config: Pick<Config, 'people'>,
  settings: Settings,
  platform: 'slack' | 'discord',
): Settings {
  const prefix = `${platform}:`;
  const people = Object.values(config.people).flatMap((person) =>
    person.identities
      .filter((identity) => identity.startsWith(prefix))
      .map((identity) => identity.slice(prefix.length)),
  );
  const added = people.filter((id) => !settings.allowFrom.includes(id));
  return added.length === 0 ? settings : { ...settings, allowFrom: [...settings.allowFrom, ...added] };
}

function reconnectOf(config: Config, name: string) {
  return name === 'slack' || name === 'discord' ? config.channels[name]?.reconnect : undefined;
}
