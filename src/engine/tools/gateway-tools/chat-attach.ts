import { Type } from '@sinclair/typebox';
import type { Tool } from '../types.js';

const ChatAttachParameters = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'The file to send: a path in your workspace, `/workspace/report.pdf` or `report.pdf`.',
    }),
    comment: Type.Optional(
      Type.String({ maxLength: 4000, description: 'A line to post with the file; none by default.' }),
    ),
  },
  { additionalProperties: false },
);

export const chatAttachTool: Tool<typeof ChatAttachParameters> = {
  name: 'chat.attach',
  risk: ['read', 'messaging'],
  requires: ['chat-channel'],
  description:
    'Send a file of your workspace to the current chat (Slack: an upload in this thread; Discord: an attachment; web chat: a download link). Use it when the user asks for a file or a file says more than text would.',
  parameters: ChatAttachParameters,
  async execute(input, context) {
    const port = context.services.chatFiles;
    if (port === undefined) return { ok: false, reason: 'This gateway cannot send files to chats.' };
    return port.attach({
      agentId: context.agentId,
      route: context.route,
      path: input.path,
      ...(input.comment === undefined ? {} : { comment: input.comment }),
    });
  },
};
