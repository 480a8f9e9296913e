import path from 'node:path';
import { type Config, collectSecretValues, createSecretScrubber } from '../base/config/index.js';
import type { Logger } from '../base/logging/index.js';
import type { OutboundFor } from '../base/messages/index.js';
import { BUILTIN_COMMANDS } from '../engine/routing/index.js';
import type { Store } from '../records/store/index.js';
import {
  type ChannelAdapter,
  type ChannelMemory,
  type ChannelSupervisor,
  createChannelSupervisor,
  createOutboundFor,
  createWebchatAdapter,
  type InboundFileStore,
  loadDiscordAdapter,
  loadSlackAdapter,
  readNames,
  type SlackAdapter,
  type WebchatAdapter,
} from '../surfaces/channels/index.js';
import {
  createWebchatJournal,
  type NamesPort,
  type WebchatJournalReader,
} from '../surfaces/control/index.js';
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
  /** The user and chat names Slack and Discord gave, as their adapters keep them (for the control UI). */
  names: NamesPort;
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
  const memories = {
    slack: createStoreChannelMemory({ store, channel: 'slack' }),
    discord: createStoreChannelMemory({ store, channel: 'discord' }),
  };
  const discord = config.channels.discord
    ? await loadDiscordAdapter({
        config: heardPeople(config, config.channels.discord, 'discord'),
        logger: logger.child({ channel: 'discord' }),
        memory: memories.discord,
        ...(files ? { files } : {}),
        // The router's table (it is built with the same default): registered as application commands.
        commands: BUILTIN_COMMANDS,
      })
    : undefined;
  const slack = config.channels.slack
    ? await loadSlackAdapter({
        config: heardPeople(config, config.channels.slack, 'slack'),
        logger: logger.child({ channel: 'slack' }),
        memory: memories.slack,
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
    names: platformNames(memories),
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

/** A sender's or chat's name from the memory of its platform (`slack:U1` → Slack's `U1`). */
function platformNames(memories: Record<'slack' | 'discord', ChannelMemory>): NamesPort {
  const of = (channel: string) =>
    channel === 'slack' || channel === 'discord' ? readNames(memories[channel]) : undefined;
  return {
    async user(senderId) {
      const [channel = '', ...id] = senderId.split(':');
      return id.length === 0 ? undefined : of(channel)?.user(id.join(':'));
    },
    async chat(channel, chatId) {
      return of(channel)?.chat(chatId);
    },
  };
}

function reconnectOf(config: Config, name: string) {
  return name === 'slack' || name === 'discord' ? config.channels[name]?.reconnect : undefined;
}
