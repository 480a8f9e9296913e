import { type EventEmitter, once } from 'node:events';
import { Client, Events, GatewayIntentBits, type Interaction, type Message, Partials } from 'discord.js';
import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { ConnectionEvent } from '../types.js';
import type { DiscordConfig } from './should-hear.js';

/** What the client's events go to; neither may throw synchronously (rejections are logged). */
export interface ClientListeners {
  message(message: Message): Promise<void>;
  /** Every `interactionCreate` (button clicks; no intent is needed for them). */
  interaction(interaction: Interaction): Promise<void>;
  /** The connection is (again) up: after the login, each resume and each new session. */
  connected(): Promise<void>;
  /** How the connection fares (for the channel supervisor). */
  connection(event: ConnectionEvent, error?: unknown): void;
  /** A gateway dispatch (any event) arrived: the connection's sign of life. */
  dispatched(): void;
}

/** The discord.js client for `config`: its intents and partials, REST through Node's fetch. */
export function createClient(config: Pick<DiscordConfig, 'apiBase'>): Client {
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    // Without it discord.js drops DMs whose channel is not cached yet.
    partials: [Partials.Channel],
    rest: {
      ...(config.apiBase === undefined ? {} : { api: config.apiBase }),
      // Node's own fetch, not @discordjs/rest's undici 6 `request`: that one hands a FormData body
      // as it is to the process's global dispatcher, which is undici 7's once the Slack adapter
      // (@slack/socket-mode) loaded first, and undici 7 cannot read another undici's FormData
      // ("action is not a function"): every upload failed in a gateway with both platforms.
      makeRequest: (url, init) => fetch(url, init as RequestInit),
    },
  });
}

/**
 * Logs `created` in and resolves once it is ready; `listeners` get every `messageCreate` and
 * `interactionCreate`, and its connection events and (re)connects only while `current()` says the
 * client is still the adapter's running one: `stop` destroying it is no loss. A failed login
 * destroys the client and rethrows.
 */
export async function connectClient(
  created: Client,
  options: { token: string; logger: Logger; listeners: ClientListeners; current(): boolean },
): Promise<void> {
  const { logger, listeners, current } = options;
  created.on(Events.MessageCreate, (message) => {
    listeners.message(message).catch((error: unknown) => {
      logger.warn({ err: error, messageId: message.id }, 'discord message could not be read');
    });
  });
  created.on(Events.InteractionCreate, (interaction) => {
    listeners.interaction(interaction).catch((error: unknown) => {
      logger.warn({ err: error, interactionId: interaction.id }, 'discord interaction could not be read');
    });
  });
  // Every packet; dispatches (op 0) are the events the connection delivers.
  (created as unknown as EventEmitter).on(Events.Raw, (packet: { op?: number }) => {
    if (packet.op === 0 && current()) listeners.dispatched();
  });
  created.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  // discord.js reconnects by itself; a shard that will not reconnect is lost for good.
  const tell = (event: ConnectionEvent, error?: unknown) => {
    if (current()) listeners.connection(event, error);
  };
  created.on(Events.ShardReconnecting, () => tell('down'));
  // One catch-up at a time; one asked for while another runs follows it.
  let reading: Promise<void> = Promise.resolve();
  const caughtUp = () => {
    if (!current()) return;
    reading = reading.then(() =>
      listeners.connected().catch((error: unknown) => {
        logger.warn({ err: error }, 'discord catch-up failed');
      }),
    );
  };
  created.on(Events.ShardResume, () => {
    tell('up');
    caughtUp();
  });
  created.on(Events.ShardReady, () => {
    tell('up');
    caughtUp();
  });
  created.on(Events.ShardDisconnect, (event) =>
    tell('lost', new SwitchboardError('CHANNEL_CONNECTION_LOST', `gateway closed (${event.code})`)),
  );
  const ready = once(created, Events.ClientReady);
  // Awaited only after a successful login; a failed login must not leave it unhandled.
  ready.catch(() => undefined);
  try {
    await created.login(options.token);
    if (!created.isReady()) await ready;
  } catch (error) {
    logger.error({ err: error }, 'discord login failed (check channels.discord.token)');
    await created.destroy();
    throw error;
  }
  logger.info({ user: created.user?.tag, guilds: created.guilds.cache.size }, 'discord connected');
}
