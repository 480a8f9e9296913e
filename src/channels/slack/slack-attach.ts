import type { DeliveryRoute, OutboundFile } from '../../messages/index.js';
import type { SlackState } from './slack-adapter.js';
import { directChannel } from './slack-send.js';

/**
 * Uploads `file` to the route's chat with `files.uploadV2` (Slack's upload URL, then
 * `files.completeUploadExternal` shares it, in the route's thread): needs `files:write`.
 * Logs and rethrows a failure.
 */
export async function uploadFile(state: SlackState, route: DeliveryRoute, file: OutboundFile): Promise<void> {
  try {
    const channel = route.chatType === 'direct' ? await directChannel(state, route.chatId) : route.chatId;
    const comment = file.comment === undefined ? {} : { initial_comment: file.comment };
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
