import { SwitchboardError } from '../../errors/index.js';
import type { DeliveryRoute, OutboundMessage } from '../../messages/index.js';
import { previewSettingsFor, previewsAllowed } from '../link-previews.js';
import { splitMessage } from '../split-message.js';
import { escapeMrkdwn, replyBlocks, toMrkdwn } from './blocks.js';
import type { SlackState } from './slack-adapter.js';

/** Slack's limit for `chat.postMessage` text is 40,000; 4,000 keeps a part readable. */
export const SLACK_TEXT_LIMIT = 4000;

/**
 * Posts `message` on `route` in parts of at most SLACK_TEXT_LIMIT: in the route's thread, or in
 * the channel itself for a route without one (a named route); a direct route in the user's DM
 * channel. A message with `actions` has its buttons under its last part (Block Kit: the text as
 * sections, then an actions block; `text` stays as the fallback); other parts are the model's
 * Markdown as mrkdwn (`toMrkdwn`). Each part carries `unfurls`. Logs and rethrows a failure.
 */
export async function postReply(
  state: SlackState,
  route: DeliveryRoute,
  message: OutboundMessage,
): Promise<void> {
  try {
    // Slack's conversation id: a channel's, or the DM channel's for a direct route.
    const chatId = route.chatType === 'direct' ? await directChannel(state, route.chatId) : route.chatId;
    // Channel routes carry their thread (see `deliver`); one without (a named route) posts in the channel.
    const threadTs = route.threadId;
    const parts = splitMessage(message.text, SLACK_TEXT_LIMIT);
    const actions = message.actions ?? [];
    // Buttons need a message to sit under, even when the text is empty.
    if (actions.length > 0 && parts.length === 0) parts.push('…');
    for (const [index, text] of parts.entries()) {
      const withButtons = actions.length > 0 && index === parts.length - 1;
      await state.client.chat.postMessage({
        channel: chatId,
        ...(withButtons
          ? { text: escapeMrkdwn(text), blocks: replyBlocks(text, actions) }
          : { text: toMrkdwn(text) }),
        ...unfurls(state, route.chatType === 'channel' ? route.chatId : undefined, text),
        ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      });
    }
    if (threadTs !== undefined && route.chatType === 'channel') await state.gate.joinThread(chatId, threadTs);
  } catch (error) {
    state.logger.error({ err: error, route, messageId: message.id }, 'slack post failed');
    throw error;
  }
}

/** The DM channel with `user`: learnt from inbound DMs, else opened with `conversations.open`. */
export async function directChannel(state: SlackState, user: string): Promise<string> {
  const known = state.directChannels.get(user);
  if (known !== undefined) return known;
  const opened = await state.client.conversations.open({ users: user });
  const id = opened.channel?.id;
  if (id === undefined)
    throw new SwitchboardError('CHANNEL_UNEXPECTED_ANSWER', `conversations.open gave no channel for ${user}`);
  state.directChannels.set(user, id);
  return id;
}

/**
 * `unfurl_links` / `unfurl_media` for a post (or update) of `text` in channel `channelId` (undefined
 * for a DM): false, unless every link in it is on `linkPreviews.allowHosts` (the channel's own, else
 * Slack's): see link-previews.ts.
 */
export function unfurls(
  state: Pick<SlackState, 'config'>,
  channelId: string | undefined,
  text: string,
): { unfurl_links: boolean; unfurl_media: boolean } {
  const allowed = previewsAllowed(text, previewSettingsFor(state.config, channelId));
  return { unfurl_links: allowed, unfurl_media: allowed };
}
