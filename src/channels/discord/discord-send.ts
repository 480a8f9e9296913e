import { type Client, MessageFlags, Routes } from 'discord.js';
import { SwitchboardError } from '../../errors/index.js';
import type { DeliveryRoute, OutboundMessage } from '../../messages/index.js';
import { previewSettingsFor, previewsAllowed } from '../link-previews.js';
import { splitMessage } from '../split-message.js';
import { renderButtons } from './components.js';
import type { DiscordState } from './discord-adapter.js';
import { routeKey } from './inbound.js';

/** Discord's limit on one message's content. */
export const MESSAGE_LIMIT = 2000;

/**
 * Posts `message` on `route`, split at 2000 characters, the first part as a reply to the route's
 * last heard message and the last part with the message's `actions` as buttons (`components.ts`);
 * stops the route's typing first. Each part carries `embedFlags`. Logs and rethrows a failure.
 */
export async function sendReply(
  state: DiscordState,
  route: DeliveryRoute,
  message: OutboundMessage,
): Promise<void> {
  const active = state.client;
  if (active === undefined) throw new SwitchboardError('CHANNEL_NOT_CONNECTED', 'discord is not connected');
  const key = routeKey(route);
  state.typing.stop(key);
  const replyTo = state.lastMessage.get(key);
  try {
    const target = await targetOf(state, active, route);
    if (route.chatType === 'channel' && route.threadId !== undefined)
      await state.gate.joinThread(route.threadId);
    const buttons = renderButtons(message.actions);
    if (buttons.dropped.length > 0)
      state.logger.warn(
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
      await active.rest.post(Routes.channelMessages(target), {
        body: {
          content,
          allowed_mentions: { parse: ['users'] },
          flags: embedFlags(state, route, content),
          ...reference,
          ...components,
        },
      });
    }
  } catch (error) {
    state.logger.error({ err: error, route: key, replyId: message.id }, 'discord reply failed');
    throw error;
  }
}

/** The channel id to post to: a thread, a channel, or the DM channel with a user. */
export async function targetOf(state: DiscordState, active: Client, route: DeliveryRoute): Promise<string> {
  if (route.chatType === 'channel') return route.threadId ?? route.chatId;
  const known = state.directChannels.get(route.chatId);
  if (known !== undefined) return known;
  const dm = await active.users.createDM(route.chatId);
  state.directChannels.set(route.chatId, dm.id);
  return dm.id;
}

/**
 * A message's `flags` for `content` on `route`: SUPPRESS_EMBEDS (no link previews), unless every
 * link in it is on `linkPreviews.allowHosts` (the channel's, or its thread's parent's, own; else
 * Discord's): see link-previews.ts. 0 on an edit turns previews back on.
 */
export function embedFlags(
  state: Pick<DiscordState, 'config'>,
  route: Pick<DeliveryRoute, 'chatType' | 'chatId' | 'threadId'> | undefined,
  content: string,
): number {
  const channel = route?.chatType === 'channel' ? (route.threadId ?? route.chatId) : undefined;
  const own = channel === undefined ? undefined : state.config.channels[channel]?.linkPreviews;
  const parent = route?.chatType === 'channel' ? route.chatId : undefined;
  const settings = own ?? previewSettingsFor(state.config, parent);
  return previewsAllowed(content, settings) ? 0 : MessageFlags.SuppressEmbeds;
}
