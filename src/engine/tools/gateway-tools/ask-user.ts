import { Type } from '@sinclair/typebox';
import type { Tool } from '../types.js';

const AskUserParameters = Type.Object(
  {
    question: Type.String({
      minLength: 1,
      maxLength: 4000,
      description: 'The question to post in the chat, written for the person who will answer it.',
    }),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 10,
        description: 'Suggested answers, shown as a numbered list under the question.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A boundary tool: it posts the question and ends the run; the user's answer starts the next turn. */
export const askUserTool: Tool<typeof AskUserParameters> = {
  name: 'ask_user',
  risk: ['read'],
  description:
    'Ask the user a question when you cannot go on without their answer. The question is posted to the chat and your run ends; their reply arrives as the next message. Do not write the question in your reply as well.',
  parameters: AskUserParameters,
  boundary: true,
  execute(input) {
    const choices = (input.options ?? []).map((option, index) => `${index + 1}. ${option}`);
    const post = [input.question, ...choices].join('\n');
    return { ok: true, status: 'posted; waiting for the user', post };
  },
};
