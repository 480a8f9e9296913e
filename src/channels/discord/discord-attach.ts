import { Routes } from 'discord.js';
import { SwitchboardError } from '../../errors/index.js';
import type { DeliveryRoute, OutboundFile } from '../../messages/index.js';
import type { DiscordState } from './discord-adapter.js';
import { embedFlags, targetOf } from './discord-send.js';

/**
 * Posts `file` as an attachment of a message in the route's chat (its thread), the comment as
 * the message's text; pings users only, previews off (`embedFlags`). Logs and rethrows a failure.
 */
export async function attachFile(
  state: DiscordState,
  route: DeliveryRoute,
  file: OutboundFile,
): Promise<void> {
  const active = state.client;
  if (active === undefined) throw new SwitchboardError('CHANNEL_NOT_CONNECTED', 'discord is not connected');
  try {
    const target = await targetOf(state, active, route);
    await active.rest.post(Routes.channelMessages(target), {
      body: {
        content: file.comment ?? '',
        allowed_mentions: { parse: ['users'] },
        flags: embedFlags(state, route, file.comment ?? ''),
        attachments: [{ id: 0, filename: file.name }],
      },
      files: [{ name: file.name, data: Buffer.from(file.bytes) }],
    });
  } catch (error) {
    state.logger.error({ err: error, route, file: file.name }, 'discord file upload failed');
    throw error;
  }
}
