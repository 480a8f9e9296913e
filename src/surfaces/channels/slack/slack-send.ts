import type { App } from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import type { DeliveryRoute, OutboundFile, OutboundMessage } from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import { linkHosts, previewSettingsFor, previewsAllowed } from '../link-previews.js';
import { splitMessage } from '../split-message.js';
import { escapeMrkdwn, replyBlocks, toMrkdwn } from './blocks.js';
import type { SlackConfig } from './types.js';

/** Slack's limit for `chat.postMessage` text is 40,000; 4,000 keeps a part readable. */
export const SLACK_TEXT_LIMIT = 4000;

/** Posting to Slack: replies (`chat.postMessage`) and files (`files.uploadV2`). */
export interface SlackSender {
  /**
   * Posts `message` on `route` in parts of at most SLACK_TEXT_LIMIT: in the route's thread, or in
   * the channel itself for a route without one (a named route); a direct route in the user's DM
   * channel. A message with `actions` has its buttons under its last part (Block Kit: the text as
   * sections, then an actions block; `text` stays as the fallback); other parts are the model's
   * Markdown as mrkdwn (`toMrkdwn`). Each part carries `unfurls`. Logs and rethrows a failure.
   */
  post(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  /**
   * Uploads `file` to the route's chat with `files.uploadV2` (Slack's upload URL, then
   * `files.completeUploadExternal` shares it, in the route's thread): needs `files:write`.
   * The upload's `initial_comment` cannot turn unfurls off, so a comment naming a link that may not
   * be previewed is posted first as its own message (`chat.postMessage`, unfurls off) and the file
   * follows without it. Logs and rethrows a failure.
   */
  upload(route: DeliveryRoute, file: OutboundFile): Promise<void>;
}

export function createSlackSender(options: {
  client: App['client'];
  config: SlackConfig;
  logger: Logger;
  directChannels: DirectChannels;
  /** The bot takes part in a thread it posted in (`SlackGate.joinThread`). */
  joinThread(chatId: string, threadTs: string): Promise<void>;
}): SlackSender {
  const { client, config, logger, directChannels } = options;
  // Slack's conversation id: a channel's, or the DM channel's for a direct route.
  const chatOf = (route: DeliveryRoute) =>
    route.chatType === 'direct' ? directChannels.resolve(route.chatId) : Promise.resolve(route.chatId);
  return {
    async post(route, message) {
      try {
        const chatId = await chatOf(route);
        // Channel routes carry their thread (see `deliver`); one without (a named route) posts in the channel.
        const threadTs = route.threadId;
        const parts = splitMessage(message.text, SLACK_TEXT_LIMIT);
        const actions = message.actions ?? [];
        // Buttons need a message to sit under, even when the text is empty.
        if (actions.length > 0 && parts.length === 0) parts.push('…');
        for (const [index, text] of parts.entries()) {
          const withButtons = actions.length > 0 && index === parts.length - 1;
          await client.chat.postMessage({
            channel: chatId,
            ...(withButtons
              ? { text: escapeMrkdwn(text), blocks: replyBlocks(text, actions) }
              : { text: toMrkdwn(text) }),
            ...unfurls(config, channelOf(route), text),
            ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
          });
        }
        if (threadTs !== undefined && route.chatType === 'channel')
          await options.joinThread(chatId, threadTs);
      } catch (error) {
        logger.error({ err: error, route, messageId: message.id }, 'slack post failed');
        throw error;
      }
    },
    async upload(route, file) {
      try {
        const channel = await chatOf(route);
        const where = route.threadId === undefined ? {} : { thread_ts: route.threadId };
        let comment = file.comment === undefined ? {} : { initial_comment: file.comment };
        if (file.comment !== undefined && linkHosts(file.comment).length > 0) {
          const flags = unfurls(config, channelOf(route), file.comment);
          if (!flags.unfurl_links) {
            await client.chat.postMessage({ channel, text: file.comment, ...flags, ...where });
            comment = {};
          }
        }
        const upload = { file: Buffer.from(file.bytes), filename: file.name, ...comment };
        await client.files.uploadV2(
          route.threadId === undefined
            ? { ...upload, channel_id: channel }
            : { ...upload, channel_id: channel, thread_ts: route.threadId },
        );
      } catch (error) {
        logger.error({ err: error, route, file: file.name }, 'slack file upload failed');
        throw error;
      }
    },
  };
}

/**
 * `unfurl_links` / `unfurl_media` for a post (or update) of `text` in channel `channelId` (undefined
 * for a DM): false, unless every link in it is on `linkPreviews.allowHosts` (the channel's own, else
 * Slack's): see link-previews.ts.
 */
export function unfurls(
  config: SlackConfig,
  channelId: string | undefined,
  text: string,
): { unfurl_links: boolean; unfurl_media: boolean } {
  const allowed = previewsAllowed(text, previewSettingsFor(config, channelId));
  return { unfurl_links: allowed, unfurl_media: allowed };
}

/** The channel a route's link-preview settings are looked up by: none for a DM. */
export function channelOf(route: DeliveryRoute): string | undefined {
  return route.chatType === 'channel' ? route.chatId : undefined;
}
