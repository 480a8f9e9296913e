import type { Message } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import type { InboundMessage } from '../../../base/messages/index.js';
import { type OfferedFile, saveOfferedFiles } from '../file-download.js';
import type { InboundFileStore } from '../types.js';

/**
 * What Discord answers instead of an attachment when its signed CDN address has expired or the
 * bot may not read the channel's history (a missing Read Message History permission).
 */
export const DISCORD_FILE_REFUSED =
  'Discord refused the download: the attachment address expired, or the bot lacks the Read Message History permission in this channel';

/**
 * The message with its attachments downloaded (Discord's CDN addresses are signed: no token is
 * sent) and saved; without a file store, or without attachments, the message unchanged.
 */
export async function withDiscordFiles(
  options: { files?: InboundFileStore | undefined; logger: Logger },
  message: Message,
  inbound: InboundMessage,
): Promise<InboundMessage> {
  const store = options.files;
  if (store === undefined || message.attachments.size === 0) return inbound;
  const offered = [...message.attachments.values()].map(
    (attachment): OfferedFile => ({
      name: attachment.name,
      type: attachment.contentType?.split(';')[0]?.trim() || undefined,
      size: attachment.size,
      url: attachment.url || undefined,
    }),
  );
  const files = await saveOfferedFiles(inbound, offered, { store, refused: DISCORD_FILE_REFUSED });
  for (const file of files.filter((each) => each.error !== undefined))
    options.logger.warn(
      { file: file.name, messageId: inbound.messageId, reason: file.error },
      'discord attachment not saved',
    );
  return { ...inbound, files };
}
