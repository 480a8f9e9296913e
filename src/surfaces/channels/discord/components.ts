import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  ButtonStyle,
  ComponentType,
} from 'discord.js';
import type { ReplyAction } from '../../../base/messages/index.js';

/** Discord's limits: 5 buttons a row, 5 rows a message, 80 characters a label, 100 a custom_id. */
const ROW_SIZE = 5;
const MAX_ROWS = 5;
const LABEL_LIMIT = 80;
const CUSTOM_ID_LIMIT = 100;

export type ButtonRow = APIActionRowComponent<APIButtonComponentWithCustomId>;

export interface RenderedButtons {
  rows: ButtonRow[];
  /** Actions left out because Discord would refuse the whole message for them (empty or too long a value, too many). */
  dropped: ReplyAction[];
}

const STYLES: Record<NonNullable<ReplyAction['style']>, ButtonStyle.Primary | ButtonStyle.Danger> = {
  primary: ButtonStyle.Primary,
  danger: ButtonStyle.Danger,
};

/**
 * A reply's actions as message components: rows of buttons whose `custom_id` is the action's
 * value unchanged (it comes back as the click's `InboundMessage.action`), styled primary or danger
 * (secondary without a style). An action Discord cannot carry is dropped rather than losing the
 * message: the reply's text always says how to answer without buttons.
 */
export function renderButtons(actions: readonly ReplyAction[] | undefined): RenderedButtons {
  const kept: ReplyAction[] = [];
  const dropped: ReplyAction[] = [];
  for (const action of actions ?? []) {
    const fits = action.value.length > 0 && action.value.length <= CUSTOM_ID_LIMIT;
    const unique = !kept.some((other) => other.value === action.value);
    if (fits && unique && kept.length < ROW_SIZE * MAX_ROWS) kept.push(action);
    else dropped.push(action);
  }
  const rows: ButtonRow[] = [];
  for (let start = 0; start < kept.length; start += ROW_SIZE) {
    rows.push({
      type: ComponentType.ActionRow,
      components: kept.slice(start, start + ROW_SIZE).map((action) => ({
        type: ComponentType.Button,
        style: action.style === undefined ? ButtonStyle.Secondary : STYLES[action.style],
        label: labelOf(action.label),
        custom_id: action.value,
      })),
    });
  }
  return { rows, dropped };
}

/** A label within Discord's limit; Discord refuses an empty one. */
function labelOf(label: string): string {
  const trimmed = label.trim();
  if (trimmed.length === 0) return '…';
  return trimmed.length <= LABEL_LIMIT ? trimmed : `${trimmed.slice(0, LABEL_LIMIT - 1)}…`;
}
