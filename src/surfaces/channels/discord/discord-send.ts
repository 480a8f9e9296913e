import { type Client, MessageFlags, Routes } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import type { DeliveryRoute, OutboundFile, OutboundMessage } from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import { previewSettingsFor, previewsAllowed } from '../link-previews.js';
import { splitMessage } from '../split-message.js';
import { renderButtons } from './components.js';
import { routeKey } from './inbound.js';
import type { DiscordConfig } from './should-hear.js';
import type { TypingIndicator } from './typing.js';

/** Discord's limit on one message's content. */
export const MESSAGE_LIMIT = 2000;

/** Posting to Discord: replies and files. */
export interface DiscordSender {
  /**
   * Posts `message` on `route`, split at 2000 characters, the first part as a reply to the route's
   * last heard message and the last part with the message's `actions` as buttons (`components.ts`);
   * stops the route's typing first. Each part carries `embedFlags`. Logs and rethrows a failure.
   */
  post(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  /**
   * Posts `file` as an attachment of a message in the route's chat (its thread), the comment as
   * the message's text; pings users only, previews off (`embedFlags`). Logs and rethrows a failure.
   */
  attach(route: DeliveryRoute, file: OutboundFile): Promise<void>;
  /** The channel id to post to: a thread, a channel, or the DM channel with a user. */
  target(route: DeliveryRoute): Promise<string>;
}

export interface DiscordSenderOptions {
  /** The client while the adapter runs; throws `CHANNEL_NOT_CONNECTED` while it does not. */
  client(): Client;
  config: DiscordConfig;
  logger: Logger;
  typing: TypingIndicator;
  directChannels: DirectChannels;
  /** The last heard message of a route key, which the first part of a reply refers to. */
  replyTo(key: string): string | undefined;
  /** The bot takes part in a thread it posted in (`DiscordGate.joinThread`). */
  joinThread(threadId: string): Promise<void>;
}

export function createDiscordSender(options: DiscordSenderOptions): DiscordSender {
  const { config, logger, typing, directChannels } = options;
  const target = async (route: DeliveryRoute) =>
    route.chatType === 'channel' ? (route.threadId ?? route.chatId) : directChannels.resolve(route.chatId);
  return {
    target,
    async post(route, message) {
      const active = options.client();
      const key = routeKey(route);
      typing.stop(key);
      const replyTo = options.replyTo(key);
      try {
        const channel = await target(route);
        if (route.chatType === 'channel' && route.threadId !== undefined)
          await options.joinThread(route.threadId);
        const buttons = renderButtons(message.actions);
        if (buttons.dropped.length > 0)
          logger.warn(
            { route: key, replyId: message.id, dropped: buttons.dropped.map((action) => action.label) },
            'discord cannot show some buttons of a reply (empty, repeated or over 100-character values, or over 25)',
          );
        const parts = splitMessage(message.text, MESSAGE_LIMIT);
        for (const [index, content] of parts.entries()) {
          const reference =
            index === 0 && replyTo !== undefined
              ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
              : {};
          const components =
            index === parts.length - 1 && buttons.rows.length > 0 ? { components: buttons.rows } : {};
          // Only users may be pinged by a reply; never @everyone or roles from model text.
          await active.rest.post(Routes.channelMessages(channel), {
            body: {
              content,
              allowed_mentions: { parse: ['users'] },
              flags: embedFlags(config, route, content),
              ...reference,
              ...components,
            },
          });
        }
      } catch (error) {
        logger.error({ err: error, route: key, replyId: message.id }, 'discord reply failed');
        throw error;
      }
    },
    async attach(route, file) {
      const active = options.client();
      try {
        const channel = await target(route);
        await active.rest.post(Routes.channelMessages(channel), {
          body: {
            content: file.comment ?? '',
            allowed_mentions: { parse: ['users'] },
            flags: embedFlags(config, route, file.comment ?? ''),
            attachments: [{ id: 0, filename: file.name }],
          },
          files: [{ name: file.name, data: Buffer.from(file.bytes) }],
        });
      } catch (error) {
        logger.error({ err: error, route, file: file.name }, 'discord file upload failed');
        throw error;
      }
    },
  };
}

/**
 * A message's `flags` for `content` on `route`: SUPPRESS_EMBEDS (no link previews), unless every
 * link in it is on `linkPreviews.allowHosts` (the channel's, or its thread's parent's, own; else
 * Discord's): see link-previews.ts. 0 on an edit turns previews back on.
 */
export function embedFlags(
  config: Pick<DiscordConfig, 'channels' | 'linkPreviews'>,
  route: Pick<DeliveryRoute, 'chatType' | 'chatId' | 'threadId'> | undefined,
  content: string,
): number {
  const channel = route?.chatType === 'channel' ? (route.threadId ?? route.chatId) : undefined;
  const own = channel === undefined ? undefined : config.channels[channel]?.linkPreviews;
  const parent = route?.chatType === 'channel' ? route.chatId : undefined;
  const settings = own ?? previewSettingsFor(config, parent);
  return previewsAllowed(content, settings) ? 0 : MessageFlags.SuppressEmbeds;
}
