import type { DispatchResult } from '../../messages/index.js';
import { answeredBlocks, escapeMrkdwn } from './blocks.js';
import { readClick, type Where } from './read-click.js';
import type { SlackState } from './slack-adapter.js';
import { unfurls } from './slack-send.js';

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
      ...unfurls(state, click.channel, answer.text),
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
