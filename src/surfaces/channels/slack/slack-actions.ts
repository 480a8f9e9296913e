import type { App } from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import type { DispatchResult, InboundHandler } from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import { answeredBlocks, escapeMrkdwn } from './blocks.js';
import { readClick, type Where } from './read-click.js';
import { unfurls } from './slack-send.js';
import type { SlackConfig } from './types.js';

/** What the click listener reads and answers with. */
export interface ClickListenerOptions {
  app: App;
  client: App['client'];
  config: SlackConfig;
  logger: Logger;
  directChannels: DirectChannels;
  /** The router's dispatch while the adapter runs; undefined while it is stopped. */
  handler(): InboundHandler | undefined;
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
export function listenForClicks(options: ClickListenerOptions): void {
  options.app.action({ type: 'block_actions' }, async ({ ack, body, action }) => {
    await ack();
    void answerClick(options, body, action).catch((error: unknown) =>
      options.logger.error({ err: error }, 'slack click not answered'),
    );
  });
}

/**
 * Dispatches the click (a message with `action` and no text) and shows the answer in place of the
 * clicked message's buttons (`chat.update`). The adapter decides nothing: whatever the first
 * reply says (approved, refused, already decided) is shown; its own buttons, if any, stay.
 */
async function answerClick(options: ClickListenerOptions, body: unknown, action: unknown): Promise<void> {
  const { logger } = options;
  const read = readClick(body, action);
  if (!read.ok) {
    logger.warn({ problem: read.error.problem }, 'slack click not readable; nothing dispatched');
    await tellClicker(
      options,
      read.error.where,
      `That button could not be read (${read.error.problem}); nothing changed.`,
    );
    return;
  }
  const click = read.value;
  const handler = options.handler();
  if (handler === undefined) {
    logger.warn({ channel: click.channel, ts: click.ts }, 'slack click while stopped; nothing dispatched');
    return;
  }
  if (click.message.chatType === 'direct') options.directChannels.learn(click.user, click.channel);
  let result: DispatchResult;
  try {
    result = await handler(click.message);
  } catch (error) {
    logger.error({ err: error, channel: click.channel, ts: click.ts }, 'slack click not dispatched');
    await tellClicker(
      options,
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
    await options.client.chat.update({
      channel: click.channel,
      ts: click.ts,
      text: escapeMrkdwn(answer.text),
      blocks: answeredBlocks(click.blocks, answer.text, answer.actions),
      ...unfurls(options.config, click.channel, answer.text),
    });
  } catch (error) {
    // The decision stands (the router made it); whoever clicked still learns what happened.
    logger.warn(
      { err: error, channel: click.channel, ts: click.ts },
      'chat.update failed; answered the clicker',
    );
    await tellClicker(options, click, answer.text);
  }
}

/** An ephemeral note to whoever clicked, when the payload says who and where; failures only logged. */
async function tellClicker(
  { client, logger }: Pick<ClickListenerOptions, 'client' | 'logger'>,
  where: Where,
  text: string,
): Promise<void> {
  if (where.channel === undefined || where.user === undefined) return;
  await client.chat
    .postEphemeral({
      channel: where.channel,
      user: where.user,
      text,
      ...(where.threadTs === undefined ? {} : { thread_ts: where.threadTs }),
    })
    .catch((error: unknown) =>
      logger.warn({ err: error, channel: where.channel }, 'chat.postEphemeral failed'),
    );
}
