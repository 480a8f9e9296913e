import { fail, ok, type Result } from '../../errors/index.js';
import type { DispatchResult, InboundMessage } from '../../messages/index.js';
import { answeredBlocks, blocksOf, escapeMrkdwn, REPLY_ACTION_ID, type SlackBlock } from './blocks.js';
import type { SlackState } from './slack-adapter.js';

/** Slack's own limit for a button's value: anything longer did not come from a button of ours. */
const VALUE_LIMIT = 2000;

/** A click on one of our buttons, read from a `block_actions` payload. */
interface Click {
  message: InboundMessage;
  /** The conversation and `ts` of the clicked message, for `chat.update`. */
  channel: string;
  ts: string;
  threadTs: string | undefined;
  user: string;
  blocks: SlackBlock[];
}

/** What of a payload says who clicked where, for a refusal when the rest cannot be read. */
interface Where {
  channel?: string;
  user?: string;
  threadTs?: string;
}

/**
 * Registers the listener for button clicks (every `block_actions` payload), in both modes: Socket
 * Mode `interactive` envelopes and HTTP mode's signed `payload=` form POSTs to the events path
 * (Bolt's HTTP receiver parses both bodies on one endpoint and checks the signature first). Every
 * one is acknowledged, ours (`REPLY_ACTION_ID`) and any other (answered: not ours), so Slack never
 * waits out its 3 s on a payload the bot did not expect.
 *
 * The click is acknowledged at once, before it is dispatched: the listener returns right after
 * `ack()` (HTTP mode holds its 200 until the listener returns, Socket Mode its envelope ack, see
 * ack.ts), so the dispatch runs detached and can never hold Slack past its 3 s.
 */
export function listenForClicks(state: SlackState): void {
  state.bolt.app.action({ type: 'block_actions' }, async ({ ack, body, action }) => {
    await ack();
    void answerClick(state, body, action).catch((error: unknown) =>
      state.logger.error({ err: error }, 'slack click not answered'),
    );
  });
}

/**
 * Dispatches the click (a message with `action` and no text) and shows the answer in place of the
 * clicked message's buttons (`chat.update`). The adapter decides nothing: whatever the first
 * reply says (approved, refused, already decided) is shown; its own buttons, if any, stay.
 */
async function answerClick(state: SlackState, body: unknown, action: unknown): Promise<void> {
  const { logger } = state;
  const read = readClick(body, action);
  if (!read.ok) {
    logger.warn({ problem: read.error.problem }, 'slack click not readable; nothing dispatched');
    await tellClicker(
      state,
      read.error.where,
      `That button could not be read (${read.error.problem}); nothing changed.`,
    );
    return;
  }
  const click = read.value;
  const handler = state.onInbound;
  if (handler === undefined) {
    logger.warn({ channel: click.channel, ts: click.ts }, 'slack click while stopped; nothing dispatched');
    return;
  }
  if (click.message.chatType === 'direct') state.directChannels.set(click.user, click.channel);
  let result: DispatchResult;
  try {
    result = await handler(click.message);
  } catch (error) {
    logger.error({ err: error, channel: click.channel, ts: click.ts }, 'slack click not dispatched');
    await tellClicker(
      state,
      click,
      'That click could not be handled; nothing changed. Try again, or answer in text.',
    );
    return;
  }
  const answer = result.replies[0];
  if (answer === undefined) {
    logger.warn(
      { channel: click.channel, ts: click.ts },
      'slack click got no answer; message left as it was',
    );
    return;
  }
  try {
    await state.client.chat.update({
      channel: click.channel,
      ts: click.ts,
      text: escapeMrkdwn(answer.text),
      blocks: answeredBlocks(click.blocks, answer.text, answer.actions),
    });
  } catch (error) {
    // The decision stands (the router made it); whoever clicked still learns what happened.
    logger.warn(
      { err: error, channel: click.channel, ts: click.ts },
      'chat.update failed; answered the clicker',
    );
    await tellClicker(state, click, answer.text);
  }
}

/** An ephemeral note to whoever clicked, when the payload says who and where; failures only logged. */
async function tellClicker(state: SlackState, where: Where, text: string): Promise<void> {
  if (where.channel === undefined || where.user === undefined) return;
  await state.client.chat
    .postEphemeral({
      channel: where.channel,
      user: where.user,
      text,
      ...(where.threadTs === undefined ? {} : { thread_ts: where.threadTs }),
    })
    .catch((error: unknown) =>
      state.logger.warn({ err: error, channel: where.channel }, 'chat.postEphemeral failed'),
    );
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * The click as every adapter's message: the sender is the payload's `user.id` (Slack's, never a
 * name or text); a channel's conversation is the clicked message's thread (as for `toInbound`),
 * a DM's is the user. Fails, naming what is wrong, on a payload that is not a click on one of
 * our buttons under a message.
 */
export function readClick(body: unknown, action: unknown): Result<Click, { problem: string; where: Where }> {
  const payload = record(body);
  const message = record(payload.message);
  const container = record(payload.container);
  const user = text(record(payload.user).id);
  const channel = text(container.channel_id) ?? text(record(payload.channel).id);
  const ts = text(message.ts) ?? text(container.message_ts);
  const threadTs = text(message.thread_ts);
  const where: Where = { ...(channel && { channel }), ...(user && { user }), ...(threadTs && { threadTs }) };
  const button = record(action);
  const value = text(button.value);
  if (user === undefined) return fail({ problem: 'no user id', where });
  if (channel === undefined) return fail({ problem: 'no channel', where });
  if (ts === undefined) return fail({ problem: 'not under a message', where });
  if (!REPLY_ACTION_ID.test(text(button.action_id) ?? ''))
    return fail({ problem: 'not a button of this gateway', where });
  if (button.type !== 'button' || value === undefined || value.length > VALUE_LIMIT)
    return fail({ problem: 'not a button with a value', where });
  const direct = channel.startsWith('D');
  const teamId = text(record(payload.team).id) ?? text(record(payload.user).team_id);
  const threadId = direct ? threadTs : (threadTs ?? ts);
  return ok({
    message: {
      channel: 'slack',
      chatType: direct ? 'direct' : 'channel',
      chatId: direct ? user : channel,
      ...(threadId === undefined ? {} : { threadId }),
      senderId: `slack:${user}`,
      text: '',
      // Unique per click: the message and when the button was pressed.
      messageId: `${ts}:${text(button.action_ts) ?? text(payload.trigger_id) ?? 'click'}`,
      ...(teamId === undefined ? {} : { teamId }),
      action: value,
    },
    channel,
    ts,
    threadTs,
    user,
    blocks: blocksOf(message.blocks),
  });
}
