import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  type CommandRecord,
  createCommandParts,
  type Registration,
  type RunCommandOptions,
} from './fake-discord-commands.js';
import { channelHistory } from './fake-discord-history.js';
import {
  buttonsOf,
  type ClickOptions,
  createInteractionParts,
  type FakeButton,
  type InteractionRecord,
} from './fake-discord-interactions.js';

export type { ClickOptions, CommandRecord, FakeButton, InteractionRecord, Registration, RunCommandOptions };

/**
 * A fake Discord for the real discord.js: REST under `/api/v10` and a v10 JSON gateway on
 * the same port (as the shared TESTING-CHANNELS.md describes). The bot's own posts are
 * echoed back as MESSAGE_CREATE, as real Discord does. Clicks on the bot's buttons come as
 * INTERACTION_CREATE (`fake-discord-interactions.ts`).
 */

export interface FakeGuild {
  id: string;
  /** Text channel ids. */
  channels: string[];
  /** Threads in the guild, with their parent channel; `announced: false` leaves one out of GUILD_CREATE. */
  threads?: { id: string; parentId: string; announced?: boolean }[];
}

export interface PostedMessage {
  channelId: string;
  content: string;
  /** `message_reference.message_id`, when the post is a reply. */
  replyTo?: string;
  /** The post's buttons (its components), when it has any. */
  buttons?: FakeButton[];
  /** Files attached to the post (a multipart post's `files[n]` parts). */
  files?: { name: string; data: Buffer }[];
}

/** An edit of one of the bot's posts (`PATCH /channels/:id/messages/:mid`). */
export interface EditedMessage {
  channelId: string;
  messageId: string;
  content: string;
  /** When the edit arrived (`Date.now()`). */
  at: number;
}

export interface IncomingDiscordMessage {
  channelId: string;
  /** Absent for a DM. */
  guildId?: string;
  authorId: string;
  authorBot?: boolean;
  content: string;
  /** User ids put in `mentions`. */
  mentions?: string[];
  id?: string;
  /**
   * Sent as a reply to this message (one the fake dispatched): `message_reference` and
   * `referenced_message` are set, as Discord does.
   */
  replyTo?: string;
  /** With `replyTo`: the reply pings the replied-to author (Discord then lists them in `mentions`). */
  replyPing?: boolean;
  /** The message's components (the bot's posts with buttons). */
  components?: unknown;
  /** Attachments as Discord sends them (`id`, `filename`, `size`, `url`, `proxy_url`, `content_type`). */
  attachments?: Record<string, unknown>[];
}

export interface FakeDiscord {
  apiBase: string;
  botId: string;
  posted: PostedMessage[];
  /** Edits of the bot's posts, in arrival order (the stored message follows them). */
  edited: EditedMessage[];
  /** When each of `posted` arrived (`Date.now()`), in the same order. */
  postedAt: number[];
  /** Channel ids typing was posted to. */
  typing: string[];
  /** Requests the fake does not know, as `METHOD path`. */
  unknown: string[];
  /** The channel ids whose messages were read (`GET /channels/:id/messages`), in order. */
  historyReads: string[];
  /** Sends MESSAGE_CREATE to every identified connection; returns the message id. */
  dispatchMessage(message: IncomingDiscordMessage): string;
  /**
   * A user clicks a button of a message (as INTERACTION_CREATE); returns the interaction id.
   * Throws when the message has no such button now, unless `forged`.
   */
  click(options: ClickOptions): string;
  /** Interaction callbacks, edits of clicked messages and follow-ups, in the order received. */
  interactions: InteractionRecord[];
  /** The application commands' bulk overwrites (`fake-discord-commands.ts`), in order. */
  registrations: Registration[];
  /** A user runs an application command (INTERACTION_CREATE, type 2); returns the interaction id. */
  runCommand(options: RunCommandOptions): string;
  /** Command interactions' callbacks, edits, deletes and follow-ups, in the order received. */
  commandRecords: CommandRecord[];
  /** The bot's post with this id (its content and buttons as edited since). */
  message(id: string): { content: string; buttons: FakeButton[] } | undefined;
  /** Open gateway connections. */
  connections(): number;
  /** The id of the bot's last post (as its MESSAGE_CREATE carried it), if any. */
  lastPostId(): string | undefined;
  /**
   * The message flags (4: SUPPRESS_EMBEDS) the request behind a record carried: one of `posted`,
   * `edited`, `interactions` or `commandRecords`; undefined when it sent none.
   */
  flagsOf(record: object): number | undefined;
  /** The message id of one of `posted`. */
  idOf(post: PostedMessage): string | undefined;
  /** Answers the next `count` message posts with 429 and `Retry-After` (seconds). */
  rateLimitPosts(count: number, retryAfterSeconds: number): void;
  /** 429 answers given so far. */
  rateLimited(): number;
  /** Closes every gateway connection with `code` (e.g. 4014, after which discord.js does not reconnect). */
  closeConnections(code: number): void;
  /** Sends op 7 (reconnect); on RESUME the fake answers RESUMED and replays the last MESSAGE_CREATE. */
  requestReconnect(): void;
  /**
   * Deafens the gateway connections open now: they stay open and Discord still answers their
   * heartbeats (op 11), but nothing is dispatched to them any more (no MESSAGE_CREATE), as on a
   * zombie connection; messages still land in the channels (`GET /channels/:id/messages`).
   */
  deafen(): void;
  /**
   * Holds the answers to `GET /gateway/bot` (asked now or later, before a new connection opens)
   * until the returned function is called, as a slow Discord does: a client starting again waits.
   */
  holdConnects(): () => void;
  /** RESUMEs accepted so far. */
  resumes(): number;
  /** How many sessions were opened (an accepted IDENTIFY, op 2). */
  identifies(): number;
  /** The DM channel the fake opened with a user (`POST /users/@me/channels`). */
  dmChannelOf(userId: string): string | undefined;
  /** Stops listening (connections to the port are refused) and cuts the open ones, as an outage does. */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeUp(): Promise<void>;
  close(): Promise<void>;
}

let nextSnowflake = 1_200_000_000_000_000_000n;
const snowflake = () => String(nextSnowflake++);

export async function createFakeDiscord(options: {
  token: string;
  guilds: FakeGuild[];
  /** Start down: the port is reserved but refuses connections until `comeUp()`. */
  down?: boolean;
}): Promise<FakeDiscord> {
  const botId = snowflake();
  const botUser = { id: botId, username: 'switchboard', discriminator: '0', avatar: null, bot: true };
  const posted: PostedMessage[] = [];
  /** The message flags each record's request carried (`flagsOf`). */
  const flags = new WeakMap<object, number>();
  const postIds = new WeakMap<PostedMessage, string>();
  const typing: string[] = [];
  const unknown: string[] = [];
  const historyReads: string[] = [];
  const identified = new Set<WebSocket>();
  const sequence = new WeakMap<WebSocket, number>();
  const dmChannels = new Map<string, string>();
  let pendingRateLimits = 0;
  let retryAfter = 0;
  let rateLimitedCount = 0;
  let resumeCount = 0;
  let identifyCount = 0;
  let lastPostId: string | undefined;
  /** The last MESSAGE_CREATE payload, replayed after a resume as Discord replays missed events. */
  let lastMessage: unknown;
  /** `holdConnects`: what `GET /gateway/bot` waits for. */
  let connectHold: Promise<void> | undefined;

  const guildOf = (channelId: string) =>
    options.guilds.find(
      (guild) =>
        guild.channels.includes(channelId) || guild.threads?.some((thread) => thread.id === channelId),
    );
  const isThread = (channelId: string) =>
    options.guilds.some((guild) => guild.threads?.some((thread) => thread.id === channelId));

  /** Connections that get no dispatches (`deafen`). */
  const deaf = new WeakSet<WebSocket>();
  const dispatch = (socket: WebSocket, type: string, data: unknown) => {
    if (deaf.has(socket)) return;
    const s = (sequence.get(socket) ?? 0) + 1;
    sequence.set(socket, s);
    socket.send(JSON.stringify({ op: 0, t: type, s, d: data }));
  };

  /** Every MESSAGE_CREATE payload by id, for the `referenced_message` of replies. */
  const messages = new Map<string, Record<string, unknown>>();
  const edits: EditedMessage[] = [];
  const postedAt: number[] = [];

  const dispatchMessage = (message: IncomingDiscordMessage): string => {
    const id = message.id ?? snowflake();
    const referenced = message.replyTo === undefined ? undefined : messages.get(message.replyTo);
    if (message.replyTo !== undefined && referenced === undefined)
      throw new Error(`fake discord: no message ${message.replyTo} to reply to`);
    const repliedAuthor = referenced?.author as { id: string } | undefined;
    const mentioned = [
      ...(message.mentions ?? []),
      ...(message.replyPing && repliedAuthor !== undefined ? [repliedAuthor.id] : []),
    ];
    const channelType = message.guildId === undefined ? 1 : isThread(message.channelId) ? 11 : 0;
    const data = {
      id,
      channel_id: message.channelId,
      ...(message.guildId === undefined ? {} : { guild_id: message.guildId }),
      channel_type: channelType,
      author: {
        id: message.authorId,
        username: `user${message.authorId}`,
        discriminator: '0',
        avatar: null,
        ...(message.authorBot ? { bot: true } : {}),
      },
      content: message.content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: mentioned.map((userId) =>
        userId === botId
          ? botUser
          : { id: userId, username: `user${userId}`, discriminator: '0', avatar: null },
      ),
      mention_roles: [],
      attachments: message.attachments ?? [],
      embeds: [],
      pinned: false,
      ...(message.components === undefined ? {} : { components: message.components }),
      type: referenced === undefined ? 0 : 19,
      ...(referenced === undefined
        ? {}
        : {
            message_reference: {
              type: 0,
              message_id: referenced.id,
              channel_id: referenced.channel_id,
              ...(referenced.guild_id === undefined ? {} : { guild_id: referenced.guild_id }),
            },
            referenced_message: referenced,
          }),
    };
    // Discord nests one level only: a referenced message comes without its own reference.
    messages.set(id, { ...data, referenced_message: undefined });
    lastMessage = data;
    for (const socket of identified) dispatch(socket, 'MESSAGE_CREATE', data);
    return id;
  };

  const answer = (response: ServerResponse, status: number, body?: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(body === undefined ? undefined : JSON.stringify(body));
  };

  const handleRest = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = multipart(request.headers['content-type'], Buffer.concat(chunks));
    const raw = form?.payload ?? Buffer.concat(chunks).toString('utf8');
    const body = raw.length > 0 ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const path = (request.url ?? '').replace(/\?.*$/, '').replace(/^\/api\/v10/, '');
    const method = request.method ?? 'GET';
    const authorized = request.headers.authorization === `Bot ${options.token}`;
    if (commands.handle(method, path, body, response, authorized)) return;
    if (interactions.handle(method, path, body, response)) return;
    if (request.headers.authorization !== `Bot ${options.token}`)
      return answer(response, 401, { message: '401: Unauthorized', code: 0 });
    if (method === 'GET' && path === '/gateway/bot') {
      await connectHold;
      const session_start_limit = { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 };
      return answer(response, 200, { url: `ws://127.0.0.1:${port}`, shards: 1, session_start_limit });
    }
    if (method === 'GET' && path === '/users/@me') return answer(response, 200, botUser);
    if (method === 'GET' && /^\/(oauth2\/)?applications\/@me$/.test(path))
      return answer(response, 200, { id: botId, name: 'switchboard', flags: 0, bot: botUser });
    if (method === 'POST' && path === '/users/@me/channels') {
      const recipient = String(body.recipient_id);
      const id = dmChannels.get(recipient) ?? snowflake();
      dmChannels.set(recipient, id);
      return answer(response, 200, {
        id,
        type: 1,
        recipients: [{ id: recipient, username: 'u', discriminator: '0' }],
      });
    }
    const channelMatch = /^\/channels\/(\d+)$/.exec(path);
    const thread = options.guilds
      .flatMap((guild) => (guild.threads ?? []).map((entry) => ({ guildId: guild.id, entry })))
      .find(({ entry }) => entry.id === channelMatch?.[1]);
    if (method === 'GET' && thread !== undefined)
      return answer(response, 200, threadObject(thread.guildId, thread.entry));
    // A guild channel, or a DM channel a message was sent in (fetched when not cached: after a restart).
    const known = [...messages.values()].find(
      (message) => message.channel_id === channelMatch?.[1] && message.author !== undefined,
    );
    if (method === 'GET' && channelMatch?.[1] !== undefined && (guildOf(channelMatch[1]) || known))
      return answer(response, 200, channelOf(channelMatch[1], known?.author as Record<string, unknown>));
    const typingMatch = /^\/channels\/(\d+)\/typing$/.exec(path);
    if (method === 'POST' && typingMatch?.[1] !== undefined) {
      typing.push(typingMatch[1]);
      response.writeHead(204);
      return response.end();
    }
    const editMatch = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    const edited = editMatch?.[2] === undefined ? undefined : messages.get(editMatch[2]);
    if (method === 'PATCH' && editMatch?.[1] !== undefined && editMatch[2] !== undefined && edited) {
      const content = String(body.content ?? edited.content ?? '');
      const edit = { channelId: editMatch[1], messageId: editMatch[2], content, at: Date.now() };
      edits.push(edit);
      if (body.flags !== undefined) flags.set(edit, Number(body.flags));
      Object.assign(edited, {
        content,
        ...(body.components === undefined ? {} : { components: body.components }),
      });
      return answer(response, 200, {
        ...edited,
        id: editMatch[2],
        channel_id: editMatch[1],
        author: botUser,
      });
    }
    const postMatch = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (method === 'POST' && postMatch?.[1] !== undefined && pendingRateLimits > 0) {
      pendingRateLimits -= 1;
      rateLimitedCount += 1;
      response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': String(retryAfter) });
      return response.end(
        JSON.stringify({ message: 'You are being rate limited.', retry_after: retryAfter, global: false }),
      );
    }
    if (method === 'POST' && postMatch?.[1] !== undefined) {
      const channelId = postMatch[1];
      const reference = body.message_reference as { message_id?: string } | undefined;
      const content = String(body.content ?? '');
      const replyTo = reference?.message_id;
      const buttons = buttonsOf(body.components);
      const post: PostedMessage = {
        channelId,
        content,
        ...(form?.files.length ? { files: form.files } : {}),
        ...(reference?.message_id === undefined ? {} : { replyTo: reference.message_id }),
        ...(buttons.length === 0 ? {} : { buttons }),
      };
      posted.push(post);
      postedAt.push(Date.now());
      if (body.flags !== undefined) flags.set(post, Number(body.flags));
      const guild = guildOf(channelId);
      const id = dispatchMessage({
        channelId,
        ...(guild === undefined ? {} : { guildId: guild.id }),
        authorId: botId,
        authorBot: true,
        content,
        ...(replyTo !== undefined && messages.has(replyTo) ? { replyTo } : {}),
        ...(body.components === undefined ? {} : { components: body.components }),
      });
      lastPostId = id;
      postIds.set(post, id);
      return answer(response, 200, {
        id,
        channel_id: channelId,
        author: botUser,
        content,
        ...(body.components === undefined ? {} : { components: body.components }),
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments: [],
        embeds: [],
        pinned: false,
        type: 0,
      });
    }
    if (method === 'GET' && postMatch?.[1] !== undefined) {
      historyReads.push(postMatch[1]);
      const query = new URL(request.url ?? '', 'http://fake').searchParams;
      const history = channelHistory(messages, postMatch[1], query);
      if ('status' in history) return answer(response, 400, { message: 'Invalid Form Body', code: 50035 });
      return answer(response, 200, history);
    }
    const oneMessage = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (method === 'GET' && oneMessage !== null) {
      const found = messages.get(oneMessage[2] ?? '');
      if (found === undefined || found.channel_id !== oneMessage[1])
        return answer(response, 404, { message: 'Unknown Message', code: 10008 });
      return answer(response, 200, found);
    }
    unknown.push(`${method} ${path}`);
    return answer(response, 404, { message: 'Unknown', code: 0 });
  };

  const threadObject = (guildId: string, thread: { id: string; parentId: string }) => ({
    id: thread.id,
    type: 11,
    name: `t${thread.id}`,
    guild_id: guildId,
    parent_id: thread.parentId,
    thread_metadata: { archived: false, auto_archive_duration: 1440, locked: false },
  });

  const guildCreate = (guild: FakeGuild) => ({
    id: guild.id,
    name: `guild${guild.id}`,
    icon: null,
    owner_id: '1',
    unavailable: false,
    member_count: 2,
    large: false,
    joined_at: new Date().toISOString(),
    features: [],
    roles: [],
    emojis: [],
    stickers: [],
    members: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    channels: guild.channels.map((id, position) => ({
      id,
      type: 0,
      name: `c${id}`,
      position,
      guild_id: guild.id,
    })),
    threads: (guild.threads ?? [])
      .filter((thread) => thread.announced !== false)
      .map((thread) => threadObject(guild.id, thread)),
  });

  const channelOf = (channelId: string, user: Record<string, unknown>): Record<string, unknown> => {
    const guild = guildOf(channelId);
    const thread = guild?.threads?.find((entry) => entry.id === channelId);
    if (guild !== undefined && thread !== undefined) return threadObject(guild.id, thread);
    if (guild !== undefined) return { id: channelId, type: 0, name: `c${channelId}`, guild_id: guild.id };
    return { id: channelId, type: 1, recipients: [user] };
  };
  const interactions = createInteractionParts({
    flags,
    botId,
    snowflake,
    messages,
    channelOf,
    dispatchAll: (type, data) => {
      for (const socket of identified) dispatch(socket, type, data);
    },
    answer,
  });
  const commands = createCommandParts({
    flags,
    botId,
    snowflake,
    guildOf,
    channelOf,
    dispatchAll: (type, data) => {
      for (const socket of identified) dispatch(socket, type, data);
    },
    answer,
  });

  const server = createServer((request, response) => {
    handleRest(request, response).catch(() => answer(response, 500, { message: 'fake failed', code: 0 }));
  });
  const gateway = new WebSocketServer({ server });
  gateway.on('connection', (socket) => {
    socket.send(JSON.stringify({ op: 10, s: null, t: null, d: { heartbeat_interval: 41_250 } }));
    socket.on('close', () => identified.delete(socket));
    socket.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as { op: number; d: { token?: string; session_id?: string } };
      if (frame.op === 1) socket.send(JSON.stringify({ op: 11, s: null, t: null, d: null }));
      if (frame.op === 6) {
        resumeCount += 1;
        identified.add(socket);
        if (lastMessage !== undefined) dispatch(socket, 'MESSAGE_CREATE', lastMessage);
        dispatch(socket, 'RESUMED', {});
      }
      if (frame.op !== 2) return;
      if (frame.d.token !== options.token && frame.d.token !== `Bot ${options.token}`) {
        socket.close(4004, 'Authentication failed.');
        return;
      }
      identified.add(socket);
      identifyCount += 1;
      dispatch(socket, 'READY', {
        v: 10,
        user: botUser,
        guilds: options.guilds.map((guild) => ({ id: guild.id, unavailable: true })),
        session_id: `session-${snowflake()}`,
        resume_gateway_url: `ws://127.0.0.1:${port}`,
        application: { id: botId, flags: 0 },
        shard: [0, 1],
      });
      for (const guild of options.guilds) dispatch(socket, 'GUILD_CREATE', guildCreate(guild));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const goDown = async () => {
    if (!listening) return;
    listening = false;
    for (const socket of gateway.clients) socket.terminate();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  if (options.down) await goDown();

  return {
    apiBase: `http://127.0.0.1:${port}/api`,
    botId,
    posted,
    flagsOf: (record) => flags.get(record),
    edited: edits,
    postedAt,
    typing,
    unknown,
    historyReads,
    dispatchMessage,
    click: interactions.click,
    interactions: interactions.records,
    registrations: commands.registrations,
    runCommand: commands.run,
    commandRecords: commands.records,
    message(id) {
      const stored = messages.get(id);
      if (stored === undefined) return undefined;
      return { content: String(stored.content), buttons: buttonsOf(stored.components) };
    },
    connections: () => gateway.clients.size,
    lastPostId: () => lastPostId,
    idOf: (post) => postIds.get(post),
    rateLimitPosts(count, retryAfterSeconds) {
      pendingRateLimits = count;
      retryAfter = retryAfterSeconds;
    },
    rateLimited: () => rateLimitedCount,
    closeConnections(code) {
      for (const socket of gateway.clients) socket.close(code, 'closed by the fake');
    },
    identifies: () => identifyCount,
    deafen() {
      for (const socket of identified) deaf.add(socket);
    },
    holdConnects() {
      let release = () => {};
      connectHold = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        connectHold = undefined;
        release();
      };
    },
    requestReconnect() {
      for (const socket of identified) socket.send(JSON.stringify({ op: 7, s: null, t: null, d: null }));
    },
    resumes: () => resumeCount,
    dmChannelOf: (userId) => dmChannels.get(userId),
    goDown,
    async comeUp() {
      if (listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      listening = true;
    },
    async close() {
      for (const socket of gateway.clients) socket.terminate();
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
      await goDown();
    },
  };
}

/**
 * A multipart/form-data body as @discordjs/rest sends a post with files: `payload_json` (the
 * message) and `files[n]` parts; undefined for any other content type.
 */
function multipart(
  contentType: string | undefined,
  body: Buffer,
): { payload: string; files: { name: string; data: Buffer }[] } | undefined {
  const boundary = /multipart\/form-data;\s*boundary=(.+)$/
    .exec(contentType ?? '')?.[1]
    ?.replace(/^"|"$/g, '');
  if (boundary === undefined) return undefined;
  const parts: Buffer[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next < 0) break;
    parts.push(body.subarray(start + delimiter.length + 2, next - 2));
    start = next;
  }
  let payload = '';
  const files: { name: string; data: Buffer }[] = [];
  for (const part of parts) {
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const data = part.subarray(split + 4);
    const field = /name="([^"]+)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (field === 'payload_json') payload = data.toString('utf8');
    else if (filename !== undefined) files.push({ name: filename, data });
  }
  return { payload, files };
}
