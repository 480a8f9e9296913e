import type { Logger } from '../../../base/logging/index.js';
import type { InboundMessage } from '../../../base/messages/index.js';
import { type OfferedFile, saveOfferedFiles } from '../file-download.js';
import type { InboundFileStore } from '../types.js';
import { type RawSlackFile, type SlackConfig, slackApiUrl } from './types.js';

/** What a missing `files:read` scope gets from Slack instead of the file: a redirect to its sign-in page. */
export const SLACK_FILE_REFUSED =
  'Slack refused the download: the Slack app needs the files:read scope (add it under OAuth & Permissions, then reinstall the app)';

/**
 * The message with the files of its event downloaded (with the bot token, the way Slack serves
 * `url_private`) and saved; without a file store, or without files, the message unchanged.
 * The token goes only to Slack's file host or the configured API's host, never to another.
 */
export async function withSlackFiles(
  raw: { files?: RawSlackFile[] },
  message: InboundMessage,
  options: { store: InboundFileStore | undefined; config: SlackConfig; logger: Logger },
): Promise<InboundMessage> {
  const { store, config } = options;
  if (store === undefined || !Array.isArray(raw.files) || raw.files.length === 0) return message;
  const offered = raw.files.map((file): OfferedFile => {
    const url = file.url_private_download ?? file.url_private;
    const trusted = url !== undefined && trustedHost(url, config.apiUrl);
    return {
      name: file.name ?? file.title ?? 'file',
      type: file.mimetype,
      size: file.size,
      url: trusted ? url : undefined,
      headers: { authorization: `Bearer ${config.botToken}` },
    };
  });
  const files = await saveOfferedFiles(message, offered, { store, refused: SLACK_FILE_REFUSED });
  for (const file of files.filter((each) => each.error !== undefined))
    options.logger.warn(
      { file: file.name, messageId: message.messageId, reason: file.error },
      'slack file not saved',
    );
  return { ...message, files };
}

/** Slack's file hosts, or the host of `channels.slack.apiUrl` (a test's fake Slack). */
function trustedHost(url: string, apiUrl: string | undefined): boolean {
  try {
    const { hostname, protocol } = new URL(url);
    if (apiUrl !== undefined && hostname === new URL(slackApiUrl({ apiUrl })).hostname) return true;
    return protocol === 'https:' && (hostname === 'files.slack.com' || hostname.endsWith('.slack.com'));
  } catch {
    return false;
  }
}
