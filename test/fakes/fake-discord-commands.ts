import type { ServerResponse } from 'node:http';

/**
 * The application-command side of the fake Discord: the bulk overwrites discord.js registers
 * commands with (`PUT /applications/:id/commands`, or `/guilds/:gid/commands` for a guild), an
 * APPLICATION_COMMAND interaction (type 2) for a user running one, and the routes discord.js answers
 * it with (callback, `@original` edit and delete, follow-ups), which go without the bot token: the
 * interaction's token in the path is the credential, as on Discord.
 */

/** One bulk overwrite: `global` or a guild id, and the commands as sent. */
export interface Registration {
  scope: string;
  commands: Record<string, unknown>[];
}

/** An option as Discord sends it in an interaction: type 1 a subcommand, 3 a string. */
export interface UsedOption {
  name: string;
  type: number;
  value?: string;
  options?: UsedOption[];
}

export interface RunCommandOptions {
  name: string;
  userId: string;
  channelId: string;
  options?: UsedOption[];
}

/** What discord.js did with a command interaction, in the order the fake received it. */
export type CommandRecord =
  /** Type 5: deferred, "thinking…" (ephemeral: only its user sees it). */
  | { kind: 'callback'; interactionId: string; type: number; ephemeral: boolean }
  | { kind: 'edit'; interactionId: string; content: string }
  | { kind: 'delete'; interactionId: string }
  | { kind: 'follow-up'; interactionId: string; content: string; ephemeral: boolean };

export interface CommandParts {
  registrations: Registration[];
  records: CommandRecord[];
  run(options: RunCommandOptions): string;
  /** Answers a route of a command interaction or a registration; false when `path` is not one. */
  handle(method: string, path: string, body: unknown, response: ServerResponse, authorized: boolean): boolean;
}

export function createCommandParts(options: {
  botId: string;
  snowflake(): string;
  guildOf(channelId: string): { id: string } | undefined;
  channelOf(channelId: string, user: Record<string, unknown>): Record<string, unknown>;
  dispatchAll(type: string, data: unknown): void;
  answer(response: ServerResponse, status: number, body?: unknown): void;
  /** Where the message flags a record's request carried are kept (`FakeDiscord.flagsOf`). */
  flags: WeakMap<object, number>;
}): CommandParts {
  const { botId, answer } = options;
  const registrations: Registration[] = [];
  const records: CommandRecord[] = [];
  const issued = new Map<string, { token: string; acknowledged: boolean }>();
  const idOfToken = (token: string | undefined) =>
    [...issued.entries()].find(([, entry]) => entry.token === token)?.[0];

  const run = (command: RunCommandOptions): string => {
    const id = options.snowflake();
    const token = `command-token-${id}`;
    issued.set(id, { token, acknowledged: false });
    const user = { id: command.userId, username: `user${command.userId}`, discriminator: '0', avatar: null };
    const guild = options.guildOf(command.channelId);
    const who =
      guild === undefined
        ? { user }
        : {
            guild_id: guild.id,
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
    options.dispatchAll('INTERACTION_CREATE', {
      id,
      application_id: botId,
      type: 2,
      token,
      version: 1,
      data: { id: options.snowflake(), name: command.name, type: 1, options: command.options ?? [] },
      channel_id: command.channelId,
      channel: options.channelOf(command.channelId, user),
      ...who,
      app_permissions: '0',
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: guild === undefined ? { '1': command.userId } : { '0': guild.id },
      context: guild === undefined ? 1 : 0,
      attachment_size_limit: 10_485_760,
    });
    return id;
  };

  const register = (path: string, body: unknown, response: ServerResponse): boolean => {
    const match = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path);
    if (match === null) return false;
    const commands = (Array.isArray(body) ? body : []) as Record<string, unknown>[];
    registrations.push({ scope: match[2] ?? 'global', commands });
    answer(
      response,
      200,
      commands.map((command) => ({
        ...command,
        id: options.snowflake(),
        application_id: botId,
        version: '1',
      })),
    );
    return true;
  };

  const handle: CommandParts['handle'] = (method, path, body, response, authorized) => {
    if (method === 'PUT' && authorized && register(path, body, response)) return true;
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    const entry = callback === null ? undefined : issued.get(callback[1] as string);
    if (method === 'POST' && callback !== null && entry !== undefined && entry.token === callback[2]) {
      const interactionId = callback[1] as string;
      if (entry.acknowledged) {
        answer(response, 400, { message: 'Interaction has already been acknowledged.', code: 40060 });
        return true;
      }
      entry.acknowledged = true;
      const flags = Number((fields.data as { flags?: number } | undefined)?.flags ?? 0);
      records.push({
        kind: 'callback',
        interactionId,
        type: Number(fields.type),
        ephemeral: (flags & 64) !== 0,
      });
      response.writeHead(204);
      response.end();
      return true;
    }
    // discord.js sends `@original` URL-encoded.
    const webhook = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/(?:@|%40)original)?$/.exec(path);
    const interactionId = idOfToken(webhook?.[2]);
    if (webhook === null || webhook[1] !== botId || interactionId === undefined) return false;
    const content = String(fields.content ?? '');
    const push = (record: CommandRecord) => {
      records.push(record);
      if (fields.flags !== undefined) options.flags.set(record, Number(fields.flags));
    };
    const message = { id: options.snowflake(), channel_id: '0', content, author: { id: botId }, type: 20 };
    if (method === 'PATCH' && webhook[3] !== undefined) {
      push({ kind: 'edit', interactionId, content });
      answer(response, 200, { ...message, timestamp: new Date().toISOString() });
    } else if (method === 'DELETE' && webhook[3] !== undefined) {
      records.push({ kind: 'delete', interactionId });
      response.writeHead(204);
      response.end();
    } else if (method === 'POST' && webhook[3] === undefined) {
      const ephemeral = (Number(fields.flags ?? 0) & 64) !== 0;
      push({ kind: 'follow-up', interactionId, content, ephemeral });
      answer(response, 200, {
        ...message,
        timestamp: new Date().toISOString(),
        flags: Number(fields.flags ?? 0),
      });
    } else return false;
    return true;
  };

  return { registrations, records, run, handle };
}
