import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../../../base/messages/index.js';

/** A message typed in the web chat page. */
export interface WebchatInput {
  text: string;
  /** The user name; the sender id is `webchat:<user>`. */
  user: string;
  thread?: string | undefined;
}

/** A click on a button under a reply in the web chat page. */
export interface WebchatClick {
  /** The button's value (`ReplyAction.value`), unchanged: opaque here, the router decides what it means. */
  action: string;
  /** The user name of the page that clicked; the sender id is `webchat:<user>`. */
  user: string;
  thread?: string | undefined;
  /** The id of the reply whose button was clicked: its buttons are replaced on every page of `user`. */
  reply?: string | undefined;
}

/** The web chat is direct chats only: the chat id is the user name, the sender `webchat:<user>`. */
function fromUser(user: string, thread: string | undefined) {
  return {
    channel: 'webchat' as const,
    chatType: 'direct' as const,
    chatId: user,
    ...(thread === undefined ? {} : { threadId: thread }),
    senderId: `webchat:${user}`,
    messageId: randomUUID(),
  };
}

export function inboundOfInput(input: WebchatInput): InboundMessage {
  return { ...fromUser(input.user, input.thread), text: input.text };
}

/** A click is an inbound message with `action` and no text (`InboundMessage.action`). */
export function inboundOfClick(click: WebchatClick): InboundMessage {
  return { ...fromUser(click.user, click.thread), text: '', action: click.action };
}
