import type { ServerResponse } from 'node:http';

/**
 * The button side of the fake Discord: INTERACTION_CREATE for a click on a message the bot posted
 * (only on a button the message has now, as Discord allows, unless `forged`), and the REST routes
 * discord.js answers an interaction with. Those go without the bot token (`auth: false`): the
 * interaction's token in the path is the credential, as on Discord.
 */

export interface FakeButton {
  label: string;
  customId: string;
  /** Discord's ButtonStyle: 1 primary, 2 secondary, 4 danger. */
  style: number;
}

export interface ClickOptions {
  messageId: string;
  userId: string;
  customId: string;
  /** Sends a custom_id the message does not carry (a tampered client; Discord itself would not). */
  forged?: boolean;
  /** Replays an earlier interaction (same id and token), as a resumed gateway may. */
  replayOf?: string;
  /** Discord's ComponentType of what was used: 2 a button (the default), 3 a string select menu. */
  componentType?: number;
}

/** What discord.js did with an interaction, in the order the fake received it. */
export type InteractionRecord =
  /** `content` and `ephemeral` for a callback that answers with a message (type 4). */
  | { kind: 'callback'; interactionId: string; type: number; content?: string; ephemeral?: boolean }
  /** A second acknowledgement of one interaction, refused (400, code 40060). */
  | { kind: 'refused'; interactionId: string }
  | { kind: 'edit'; interactionId: string; messageId: string; content: string; buttons: FakeButton[] }
  | { kind: 'follow-up'; interactionId: string; content: string; ephemeral: boolean };

export interface InteractionParts {
  records: InteractionRecord[];
  click(options: ClickOptions): string;
  /** Answers an interaction route; false when `path` is not one. */
  handle(method: string, path: string, body: Record<string, unknown>, response: ServerResponse): boolean;
}

interface Issued {
  id: string;
  token: string;
  messageId: string;
  acknowledged: boolean;
  payload: Record<string, unknown>;
}

export function buttonsOf(components: unknown): FakeButton[] {
  const rows = Array.isArray(components) ? (components as { components?: unknown[] }[]) : [];
  return rows.flatMap((row) =>
    (row.components ?? []).map((raw) => {
      const button = raw as { label?: string; custom_id?: string; style?: number };
      return { label: String(button.label), customId: String(button.custom_id), style: Number(button.style) };
    }),
  );
}

export function createInteractionParts(options: {
  botId: string;
  snowflake(): string;
  /** The stored MESSAGE_CREATE payloads by id; an edit changes the stored one. */
  messages: Map<string, Record<string, unknown>>;
  /** The channel object of a channel or thread id, as an interaction carries it. */
  channelOf(channelId: string, user: Record<string, unknown>): Record<string, unknown>;
  dispatchAll(type: string, data: unknown): void;
  answer(response: ServerResponse, status: number, body?: unknown): void;
  /** Where the message flags a record's request carried are kept (`FakeDiscord.flagsOf`). */
  flags: WeakMap<object, number>;
}): InteractionParts {
  const { botId, messages, answer } = options;
  const records: InteractionRecord[] = [];
  const issued = new Map<string, Issued>();
  const byToken = (token: string | undefined) => [...issued.values()].find((entry) => entry.token === token);

  const click = (click: ClickOptions): string => {
    const earlier = click.replayOf === undefined ? undefined : issued.get(click.replayOf);
    if (earlier !== undefined) {
      options.dispatchAll('INTERACTION_CREATE', earlier.payload);
      return earlier.id;
    }
    const message = messages.get(click.messageId);
    if (message === undefined) throw new Error(`fake discord: no message ${click.messageId} to click`);
    const offered = buttonsOf(message.components).some((button) => button.customId === click.customId);
    if (!offered && click.forged !== true && (click.componentType ?? 2) === 2)
      throw new Error(`fake discord: message ${click.messageId} has no button ${click.customId} now`);
    const id = options.snowflake();
    const token = `interaction-token-${id}`;
    const payload = interactionPayload(click, { id, token, botId, message, channelOf: options.channelOf });
    issued.set(id, { id, token, messageId: click.messageId, acknowledged: false, payload });
    options.dispatchAll('INTERACTION_CREATE', payload);
    return id;
  };

  const handle = (method: string, path: string, body: Record<string, unknown>, response: ServerResponse) => {
    const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (method === 'POST' && callback !== null) {
      const entry = issued.get(callback[1] as string);
      if (entry === undefined || entry.token !== callback[2]) {
        answer(response, 404, { message: 'Unknown interaction', code: 10062 });
      } else if (entry.acknowledged) {
        records.push({ kind: 'refused', interactionId: entry.id });
        answer(response, 400, { message: 'Interaction has already been acknowledged.', code: 40060 });
      } else {
        entry.acknowledged = true;
        const data = body.data as { content?: string; flags?: number } | undefined;
        records.push({
          kind: 'callback',
          interactionId: entry.id,
          type: Number(body.type),
          ...(data?.content === undefined
            ? {}
            : { content: data.content, ephemeral: (Number(data.flags ?? 0) & 64) !== 0 }),
        });
        response.writeHead(204);
        response.end();
      }
      return true;
    }
    // discord.js sends `@original` URL-encoded.
    const webhook = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/(?:@|%40)original)?$/.exec(path);
    if (webhook === null || webhook[1] !== botId) return false;
    const entry = byToken(webhook[2]);
    if (entry === undefined || !entry.acknowledged) {
      answer(response, 401, { message: 'Invalid Webhook Token', code: 50027 });
      return true;
    }
    const content = String(body.content ?? '');
    const push = (record: InteractionRecord) => {
      records.push(record);
      if (body.flags !== undefined) options.flags.set(record, Number(body.flags));
    };
    if (method === 'PATCH' && webhook[3] !== undefined) {
      const message = messages.get(entry.messageId) as Record<string, unknown>;
      const edited = { ...message, content, components: body.components ?? message.components };
      messages.set(entry.messageId, edited);
      const buttons = buttonsOf(edited.components);
      push({ kind: 'edit', interactionId: entry.id, messageId: entry.messageId, content, buttons });
      answer(response, 200, { ...edited, edited_timestamp: new Date().toISOString() });
      return true;
    }
    if (method === 'POST' && webhook[3] === undefined) {
      const ephemeral = (Number(body.flags ?? 0) & 64) !== 0;
      push({ kind: 'follow-up', interactionId: entry.id, content, ephemeral });
      const message = messages.get(entry.messageId) as Record<string, unknown>;
      const id = options.snowflake();
      answer(response, 200, { ...message, id, content, components: [], flags: Number(body.flags ?? 0) });
      return true;
    }
    return false;
  };

  return { records, click, handle };
}

/** A MESSAGE_COMPONENT interaction (type 3) for a button (component_type 2), as Discord sends it. */
function interactionPayload(
  click: ClickOptions,
  context: {
    id: string;
    token: string;
    botId: string;
    message: Record<string, unknown>;
    channelOf(channelId: string, user: Record<string, unknown>): Record<string, unknown>;
  },
): Record<string, unknown> {
  const { message } = context;
  const user = { id: click.userId, username: `user${click.userId}`, discriminator: '0', avatar: null };
  const guildId = message.guild_id as string | undefined;
  const channelId = message.channel_id as string;
  const who =
    guildId === undefined
      ? { user }
      : {
          guild_id: guildId,
          guild_locale: 'en-US',
          member: {
            user,
            roles: [],
            joined_at: new Date().toISOString(),
            deaf: false,
            mute: false,
            flags: 0,
          },
        };
  return {
    id: context.id,
    application_id: context.botId,
    type: 3,
    token: context.token,
    version: 1,
    data:
      (click.componentType ?? 2) === 2
        ? { custom_id: click.customId, component_type: 2 }
        : { custom_id: click.customId, component_type: click.componentType, values: [] },
    channel_id: channelId,
    channel: context.channelOf(channelId, user),
    ...who,
    message: { ...message, referenced_message: undefined },
    app_permissions: '0',
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: guildId === undefined ? { '1': click.userId } : { '0': guildId },
    context: guildId === undefined ? 1 : 0,
    attachment_size_limit: 10_485_760,
  };
}
