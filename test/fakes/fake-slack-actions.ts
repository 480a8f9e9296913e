import { randomInt } from 'node:crypto';
import { type FakeSlack, postSignedBody } from './fake-slack.js';

/** A button of a posted message, as its actions block holds it. */
export interface FakeSlackButton {
  action_id: string;
  value: string;
  text: { type: string; text: string };
  style?: string;
  block_id: string;
}

/** The buttons under the bot's message `ts` (empty once `chat.update` removed them). */
export function buttonsOf(fake: FakeSlack, ts: string): FakeSlackButton[] {
  const message = fake.messages.get(ts);
  if (message === undefined) throw new Error(`fake slack: no message ${ts}`);
  return message.blocks
    .filter((block) => block.type === 'actions')
    .flatMap((block) =>
      ((block.elements as Omit<FakeSlackButton, 'block_id'>[]) ?? []).map((element) => ({
        ...element,
        block_id: String(block.block_id),
      })),
    );
}

/**
 * The `block_actions` payload Slack sends when `user` clicks the button labelled `label` under the
 * bot's message `ts` (fields as Slack sends them for a message button). `edit` changes the
 * clicked action (a forged `value`) after it is read from the message.
 */
export function blockActions(
  fake: FakeSlack,
  options: { ts: string; user: string; label: string; edit?: Record<string, unknown> },
): Record<string, unknown> {
  const message = fake.messages.get(options.ts);
  const button = buttonsOf(fake, options.ts).find((candidate) => candidate.text.text === options.label);
  if (message === undefined || button === undefined)
    throw new Error(`fake slack: no button ${options.label} under ${options.ts}`);
  // Unique per click, as Slack's are.
  const click = randomInt(1_000_000);
  const actionTs = `${Math.floor(Date.now() / 1000)}.${String(click).padStart(6, '0')}`;
  return {
    type: 'block_actions',
    user: {
      id: options.user,
      username: options.user.toLowerCase(),
      name: options.user.toLowerCase(),
      team_id: fake.teamId,
    },
    api_app_id: 'A1',
    token: 'verification-token',
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
      ...(message.threadTs && { thread_ts: message.threadTs }),
    },
    trigger_id: `trigger-${click}`,
    team: { id: fake.teamId, domain: 'team' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: message.channel.startsWith('D') ? 'directmessage' : 'general' },
    message: {
      type: 'message',
      user: fake.botUserId,
      bot_id: 'BBOT',
      text: message.text,
      ts: message.ts,
      ...(message.threadTs && { thread_ts: message.threadTs }),
      blocks: message.blocks,
    },
    state: { values: {} },
    response_url: `${fake.apiUrl.replace(/\/api\/$/, '')}/actions/T1/${click}/response`,
    actions: [{ type: 'button', ...button, action_ts: actionTs, ...options.edit }],
  };
}

/**
 * POSTs an interactivity payload to an HTTP-mode URL as Slack does: a form body `payload=<json>`,
 * signed with `signingSecret` (or a given signature). Resolves with the HTTP status.
 */
export function postSignedPayload(
  url: string,
  payload: Record<string, unknown>,
  signingSecret: string,
  options: { signature?: string } = {},
): Promise<number> {
  const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return postSignedBody(
    url,
    { raw, contentType: 'application/x-www-form-urlencoded' },
    signingSecret,
    options,
  );
}
