import slackify from 'slackify-markdown';
import type { ReplyAction } from '../../../base/messages/index.js';
import { splitMessage } from '../split-message.js';

/** Slack's limit for a section's mrkdwn text. */
export const SECTION_TEXT_LIMIT = 3000;
/** Slack's limit for a button's label. */
const BUTTON_LABEL_LIMIT = 75;
/** Slack's limit for the elements of one actions block. */
const ACTIONS_PER_BLOCK = 25;

/**
 * The `action_id` of a reply's buttons: this prefix and the button's position, so ids are
 * distinct within a message and `app.action(REPLY_ACTION_ID)` hears our buttons and no others.
 */
const ACTION_ID_PREFIX = 'switchboard.reply.';
export const REPLY_ACTION_ID = /^switchboard\.reply\.\d+$/;

/**
 * A code fence's language (```json): Slack's mrkdwn has none and would show the word as the
 * block's first line, so it is dropped (the split has already used it to reopen a cut fence).
 */
const FENCE_LANGUAGE = /^([ \t]*)```[\w+.-]+[ \t]*$/gm;

/** A Block Kit block as the Web API takes it (only the fields this module reads are typed). */
export interface SlackBlock {
  type: string;
  [field: string]: unknown;
}

/**
 * Slack reads `&`, `<` and `>` in mrkdwn as its own syntax (`<!channel>` pings everyone,
 * `<url|label>` hides a link's target). A reply with buttons asks someone to decide on what it
 * shows, so it is shown as written: those three are escaped, as Slack's docs require.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The model's Markdown as Slack mrkdwn (`slackify-markdown`: `**bold**` → `*bold*`, links as
 * `<url|label>`, `&`, `<`, `>` escaped outside Slack's own `<@U…>` syntax, fence languages dropped);
 * the text itself if it cannot be read.
 */
export function toMrkdwn(markdown: string): string {
  try {
    return slackify(markdown).trim();
  } catch {
    return markdown;
  }
}

/**
 * `text` as section blocks of at most SECTION_TEXT_LIMIT characters each (mrkdwn, escaped). The
 * text is split before it is escaped, so no cut falls inside an `&lt;`; a part that escaping made
 * too long is split again, smaller.
 */
export function sectionBlocks(text: string, limit = SECTION_TEXT_LIMIT): SlackBlock[] {
  return splitMessage(text, limit).flatMap((part) => {
    const escaped = escapeMrkdwn(part).replace(FENCE_LANGUAGE, '$1```');
    // At the smallest limit (64) an escaped part is at most 5 × 64 characters: always short enough.
    if (escaped.length > SECTION_TEXT_LIMIT) return sectionBlocks(part, Math.max(64, Math.floor(limit / 2)));
    return [{ type: 'section', text: { type: 'mrkdwn', text: escaped } }];
  });
}

/**
 * A reply with buttons: its text as sections, then its buttons in actions blocks (25 a block).
 * Each button's `value` is the action's value, unchanged; it comes back in the click's payload.
 */
export function replyBlocks(text: string, actions: readonly ReplyAction[]): SlackBlock[] {
  const buttons = actions.map((action, index) => ({
    type: 'button',
    action_id: `${ACTION_ID_PREFIX}${index}`,
    text: { type: 'plain_text', text: label(action.label), emoji: true },
    value: action.value,
    ...(action.style === undefined ? {} : { style: action.style }),
  }));
  const rows: SlackBlock[] = [];
  for (let start = 0; start < buttons.length; start += ACTIONS_PER_BLOCK)
    rows.push({ type: 'actions', elements: buttons.slice(start, start + ACTIONS_PER_BLOCK) });
  return [...sectionBlocks(text), ...rows];
}

/**
 * The clicked message once answered: its blocks without the actions blocks (no buttons left to
 * click), then the answer's text, and the answer's own buttons when it has any.
 */
export function answeredBlocks(
  original: readonly SlackBlock[],
  answer: string,
  actions: readonly ReplyAction[] = [],
): SlackBlock[] {
  const kept = original.filter((block) => block.type !== 'actions');
  return [...kept, ...replyBlocks(answer, actions)];
}

/** The blocks of a message in a payload: the well-formed ones only (an object with a `type`). */
export function blocksOf(value: unknown): SlackBlock[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (block): block is SlackBlock =>
      typeof block === 'object' && block !== null && typeof (block as SlackBlock).type === 'string',
  );
}

function label(text: string): string {
  const trimmed = text.trim() || '…';
  return trimmed.length <= BUTTON_LABEL_LIMIT ? trimmed : `${trimmed.slice(0, BUTTON_LABEL_LIMIT - 1)}…`;
}
