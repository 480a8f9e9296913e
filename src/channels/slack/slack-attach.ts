import type { DeliveryRoute, OutboundFile } from '../../messages/index.js';
import { linkHosts } from '../link-previews.js';
import type { SlackState } from './slack-adapter.js';
import { directChannel, unfurls } from './slack-send.js';

/**
 * Uploads `file` to the route's chat with `files.uploadV2` (Slack's upload URL, then
 * `files.completeUploadExternal` shares it, in the route's thread): needs `files:write`.
 * The upload's `initial_comment` cannot turn unfurls off, so a comment naming a link that may not
 * be previewed is posted first as its own message (`chat.postMessage`, unfurls off) and the file
 * follows without it. Logs and rethrows a failure.
 */
export async function uploadFile(state: SlackState, route: DeliveryRoute, file: OutboundFile): Promise<void> {
  try {
    const channel = route.chatType === 'direct' ? await directChannel(state, route.chatId) : route.chatId;
    const where = route.threadId === undefined ? {} : { thread_ts: route.threadId };
    let comment = file.comment === undefined ? {} : { initial_comment: file.comment };
    if (file.comment !== undefined && linkHosts(file.comment).length > 0) {
      const flags = unfurls(state, route.chatType === 'channel' ? route.chatId : undefined, file.comment);
      if (!flags.unfurl_links) {
        await state.client.chat.postMessage({ channel, text: file.comment, ...flags, ...where });
        comment = {};
      }
    }
    const upload = { file: Buffer.from(file.bytes), filename: file.name, ...comment };
    await state.client.files.uploadV2(
      route.threadId === undefined
        ? { ...upload, channel_id: channel }
        : { ...upload, channel_id: channel, thread_ts: route.threadId },
    );
  } catch (error) {
    state.logger.error({ err: error, route, file: file.name }, 'slack file upload failed');
    throw error;
  }
}
