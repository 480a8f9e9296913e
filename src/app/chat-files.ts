import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import type { OutboundFor } from '../base/messages/index.js';
import type { ChatAttachOutcome, ChatFilesPort } from '../engine/tools/index.js';

/** The largest file `chat.attach` sends: Discord's limit for a bot's upload (Slack takes more). */
const MAX_ATTACH_BYTES = 10 * 1_048_576;

export interface ChatFilesOptions {
  /** The real host path of a file of the agent's workspace (`workspaceFile`); throws when it is not one. */
  workspaceFile(agentId: string, written: string): Promise<string>;
  /** The route's `Outbound` the file goes to (`file` is false when that channel takes no files). */
  outboundFor: OutboundFor;
  logger: Logger;
}

/**
 * `chat.attach` through the gateway: a regular file of the agent's own workspace (a symlink out
 * of it is refused), at most 10 MB, sent to the turn's chat. Every failure is an outcome.
 */
export function createChatFiles(options: ChatFilesOptions): ChatFilesPort {
  return {
    async attach(request): Promise<ChatAttachOutcome> {
      if (request.route.channel === 'internal')
        return { ok: false, reason: 'This session has no chat to send a file to.' };
      const written = request.path.startsWith('/') ? request.path : `/workspace/${request.path}`;
      try {
        const file = await options.workspaceFile(request.agentId, written);
        const info = await stat(file);
        if (!info.isFile()) return { ok: false, reason: `${written} is not a file.` };
        if (info.size > MAX_ATTACH_BYTES)
          return { ok: false, reason: `${written} is larger than the 10 MB a chat file may be.` };
        const name = path.basename(file);
        const sent = await options.outboundFor(request.route).file({
          name,
          bytes: await readFile(file),
          ...(request.comment === undefined ? {} : { comment: request.comment }),
        });
        if (!sent) return { ok: false, reason: `Files cannot be sent to ${request.route.channel} chats.` };
        return { ok: true, name, size: info.size };
      } catch (error) {
        options.logger.warn({ err: error, path: written }, 'chat.attach failed');
        return { ok: false, reason: `${written} was not sent: ${errorText(error)}` };
      }
    },
  };
}
