import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { createThreadLog } from './fake-slack-threads.js';

export interface FakeSlackCall {
  method: string;
  args: Record<string, string>;
  /** When the call arrived (`Date.now()`). */
  at: number;
}

/** A message the bot posted (and maybe updated), as Slack keeps it: blocks get a `block_id`. */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  blocks: Record<string, unknown>[];
}

export interface FakeSlackOptions {
  botUserId?: string;
  botId?: string;
  teamId?: string;
  /** Deliver the bot's own posts back as `message` events over Socket Mode, as Slack does. */
  echoPosts?: boolean;
  /**
   * When given, Web API calls other than `apps.connections.open` must carry this token (as
   * `Authorization: Bearer` or a `token` argument) or are answered `invalid_auth`, as Slack does.
   */
  botToken?: string;
  /** When given, `apps.connections.open` must carry this app-level token or is answered `invalid_auth`. */
  appToken?: string;
  /** Start down: the port is reserved but refuses connections until `comeUp()`. */
  down?: boolean;
  /** `users.info`: each user id's display name (others: `user_not_found`). */
  users?: Record<string, string>;
  /** `conversations.info`: each channel id's name, without `#` (others: `channel_not_found`). */
  channelNames?: Record<string, string>;
}

export interface FakeSlack {
  /** Web API base for `channels.slack.apiUrl` (ends with `/api/`). */
  apiUrl: string;
  botUserId: string;
  teamId: string;
  calls: FakeSlackCall[];
  /** Socket Mode messages that were not an ack of a delivered envelope. */
  badAcks: string[];
  callsTo(method: string): FakeSlackCall[];
  /** Resolves with the first call to `method` (already made or coming) that `match` accepts. */
  waitForCall(
    method: string,
    match?: (call: FakeSlackCall) => boolean,
    timeoutMs?: number,
  ): Promise<FakeSlackCall>;
  /**
   * Files uploaded with `files.uploadV2`: the upload URL's raw body (the file in it) by file id,
   * with the name `files.getUploadURLExternal` was given.
   */
  uploads: Map<string, { filename: string; body: Buffer }>;
  /** The bot's posts by `ts`, as `chat.update` left them. */
  messages: Map<string, FakeSlackMessage>;
  /**
   * Resolves with the first of the bot's messages (posted, or as updated since: a streamed reply
   * ends as an update of its placeholder) that `match` accepts.
   */
  waitForMessage(
    match: (message: FakeSlackMessage) => boolean,
    timeoutMs?: number,
  ): Promise<FakeSlackMessage>;
  /**
   * Sends an `interactive` envelope (a `block_actions` payload, see fake-slack-actions.ts) over
   * Socket Mode, as Slack does for a click; resolves when the client acks it.
   */
  interact(payload: Record<string, unknown>): Promise<void>;
  /**
   * Sends a `slash_commands` envelope (a payload from fake-slack-commands.ts) over Socket Mode, as
   * Slack does when a user runs the app's slash command; resolves when the client acks it.
   */
  command(payload: Record<string, unknown>): Promise<void>;
  /** Sends an `events_api` envelope over Socket Mode; resolves when the client acks it. */
  deliver(
    event: Record<string, unknown>,
    options?: { eventId?: string; retryAttempt?: number },
  ): Promise<void>;
  /** Resolves when a Socket Mode client is connected (hello sent). */
  connected(): Promise<void>;
  /** Open Socket Mode connections. */
  readonly sockets: number;
  /**
   * Ends the Socket Mode connections: `refresh` sends Slack's `disconnect` (refresh_requested) as
   * Slack does before it rotates a connection; `drop` cuts the TCP connection without a word.
   */
  disconnect(how: 'refresh' | 'drop'): void;
  /** Answers the next `count` calls to `method` with HTTP 429 and `Retry-After: retryAfterSeconds`. */
  rateLimit(method: string, count: number, retryAfterSeconds: number): void;
  /**
   * Holds the answers to calls of `method` (made now or later) until the returned function is
   * called, as a slow or rate-limited Slack does.
   */
  hold(method: string): () => void;
  /** Answers calls to `method` whose `channel` is `channel` with `{ ok: false, error }`, as Slack does. */
  failFor(method: string, channel: string, error: string): void;
  /**
   * Socket Mode: the open connections stop answering pings (no pong), as a frozen link or a paused
   * peer does, until the returned function is called.
   */
  freeze(): () => void;
  /**
   * Deafens the Socket Mode connections open now: they stay open, answer pings and take acks, but
   * every envelope meant for them is dropped without a word (left unacknowledged), as Slack does
   * with a stale connection it still counts; the messages still show in `conversations.history`.
   * Slack delivers an unacknowledged event again: each is sent once more (`retry_attempt` 1) on
   * the next connection, and its `deliver` resolves once that is acked.
   */
  deafen(): void;
  /**
   * A message posted that the app gets no event for (an app subscribed to `app_mention` but not
   * to `message.channels`): it shows in `conversations.history`, and nothing is sent.
   */
  postWithoutEvent(event: Record<string, unknown>): void;
  /** Stops listening (connections to the port are refused) and cuts the open ones, as an outage does. */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeUp(): Promise<void>;
  /** Ends a `failFor`: calls to `method` in `channel` succeed again. */
  recover(method: string, channel: string): void;
  close(): Promise<void>;
}

/**
 * A fake Slack on 127.0.0.1: the Web API methods the adapter uses (recorded in `calls`) and a
 * Socket Mode WebSocket (`apps.connections.open` hands out its URL) that sends `hello`, delivers
 * `events_api` envelopes and checks that every ack names a delivered envelope.
 */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botUserId = options.botUserId ?? 'UBOT';
  const botId = options.botId ?? 'BBOT';
  const teamId = options.teamId ?? 'T1';
  const calls: FakeSlackCall[] = [];
  const waiters = new Set<() => void>();
  const pendingAcks = new Map<string, () => void>();
  const sockets = new Set<WebSocket>();
  const badAcks: string[] = [];
  const connectWaiters = new Set<() => void>();
  /** Connections that get nothing (`deafen`), and what was meant for them, to send again. */
  const deaf = new WeakSet<WebSocket>();
  const dropped: Array<{
    envelope: Record<string, unknown>;
    acked: () => void;
    failed: (error: Error) => void;
  }> = [];
  let envelopes = 0;
  let clock = 1_700_000_000;
  const nextTs = () => `${++clock}.000100`;

  const rateLimits = new Map<string, { count: number; retryAfterSeconds: number }>();
  const failures = new Map<string, string>();
  const holds = new Map<string, Promise<void>>();

  const messages = new Map<string, FakeSlackMessage>();
  /** Delivered message events and the bot's posts, for `conversations.replies`. */
  const threadLog = createThreadLog();

  const uploads = new Map<string, { filename: string; body: Buffer }>();
  let uploadCount = 0;

  const server: Server = createServer(async (request, response) => {
    const uploadId = /^\/upload\/(F\w+)$/.exec(request.url ?? '')?.[1];
    if (uploadId !== undefined) {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const upload = uploads.get(uploadId);
      if (upload !== undefined) upload.body = Buffer.concat(chunks);
      response.writeHead(upload === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end('OK');
      return;
    }
    const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
    const args = await readArgs(request);
    calls.push({ method, args, at: Date.now() });
    for (const wake of [...waiters]) wake();
    await holds.get(method);
    const limit = rateLimits.get(method);
    if (limit !== undefined && limit.count > 0) {
      limit.count -= 1;
      response
        .writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(limit.retryAfterSeconds),
        })
        .end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    const failure = failures.get(`${method} ${args.channel ?? ''}`);
    const reply = !authorized(method, request, args)
      ? { ok: false, error: 'invalid_auth' }
      : failure !== undefined
        ? { ok: false, error: failure }
        : answer(method, args);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
  // Pongs are sent here, not by ws, so that `freeze` can withhold them.
  const wss = new WebSocketServer({ server, autoPong: false });
  let frozen = false;
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('ping', (data) => {
      if (!frozen) socket.pong(data);
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const ack = JSON.parse(String(data)) as { envelope_id?: string };
      const settle = ack.envelope_id === undefined ? undefined : pendingAcks.get(ack.envelope_id);
      if (!settle) {
        badAcks.push(String(data));
        return;
      }
      pendingAcks.delete(ack.envelope_id as string);
      settle();
    });
    socket.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }));
    for (const wake of [...connectWaiters]) wake();
    // Slack retries what a deaf connection never acknowledged, on a connection that hears.
    for (const { envelope, acked, failed } of dropped.splice(0)) {
      const retry = envelope.type === 'events_api' ? { retry_attempt: 1, retry_reason: 'timeout' } : {};
      sendEnvelope({ ...envelope, ...retry }).then(acked, failed);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let listening = true;
  const goDown = async () => {
    if (!listening) return;
    listening = false;
    for (const socket of sockets) socket.terminate();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  if (options.down) await goDown();

  /** Whether the call carries the token its method needs; always true without the token options. */
  function authorized(method: string, request: IncomingMessage, args: Record<string, string>): boolean {
    const expected = method === 'apps.connections.open' ? options.appToken : options.botToken;
    if (expected === undefined) return true;
    const header = request.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : args.token;
    return given === expected;
  }

  function answer(method: string, args: Record<string, string>): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          user_id: botUserId,
          bot_id: botId,
          team_id: teamId,
          user: 'switchboard',
          team: 'Team',
        };
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${port}/link` };
      case 'files.getUploadURLExternal': {
        const fileId = `F${++uploadCount}`;
        uploads.set(fileId, { filename: args.filename ?? '', body: Buffer.alloc(0) });
        return { ok: true, upload_url: `http://127.0.0.1:${port}/upload/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal': {
        const files = JSON.parse(args.files ?? '[]') as { id: string; title?: string }[];
        return { ok: true, files: files.map((file) => ({ id: file.id, title: file.title ?? '' })) };
      }
      case 'conversations.open':
        return { ok: true, channel: { id: `D${args.users ?? ''}` } };
      case 'chat.postMessage': {
        const ts = nextTs();
        const channel = args.channel ?? '';
        if (options.echoPosts && sockets.size > 0) {
          const echo = { type: 'message', channel, user: botUserId, bot_id: botId, text: args.text, ts };
          void fake
            .deliver({ ...echo, ...(args.thread_ts && { thread_ts: args.thread_ts }) })
            .catch(() => {});
        }
        threadLog.record({
          channel,
          ts,
          user: botUserId,
          bot_id: botId,
          text: args.text,
          thread_ts: args.thread_ts,
        });
        messages.set(ts, {
          channel,
          ts,
          text: args.text ?? '',
          ...(args.thread_ts && { threadTs: args.thread_ts }),
          blocks: withBlockIds(args.blocks),
        });
        return { ok: true, channel, ts, message: { text: args.text, ts } };
      }
      case 'chat.update': {
        const kept = messages.get(args.ts ?? '');
        if (kept === undefined || kept.channel !== args.channel)
          return { ok: false, error: 'message_not_found' };
        Object.assign(kept, { text: args.text ?? '', blocks: withBlockIds(args.blocks) });
        return { ok: true, channel: kept.channel, ts: kept.ts, text: kept.text };
      }
      case 'chat.delete': {
        const kept = messages.get(args.ts ?? '');
        if (kept === undefined || kept.channel !== args.channel)
          return { ok: false, error: 'message_not_found' };
        messages.delete(kept.ts);
        return { ok: true, channel: kept.channel, ts: kept.ts };
      }
      case 'users.info': {
        const name = options.users?.[args.user ?? ''];
        if (name === undefined) return { ok: false, error: 'user_not_found' };
        const profile = { display_name: name, real_name: `${name} (real)` };
        return {
          ok: true,
          user: { id: args.user, name: name.toLowerCase(), real_name: profile.real_name, profile },
        };
      }
      case 'conversations.info': {
        const name = options.channelNames?.[args.channel ?? ''];
        if (name === undefined) return { ok: false, error: 'channel_not_found' };
        return { ok: true, channel: { id: args.channel, name, is_channel: true } };
      }
      case 'conversations.replies':
        return threadLog.replies(args);
      case 'conversations.history':
        return threadLog.history(args);
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'reactions.add':
      case 'reactions.remove':
        return { ok: true };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** Sends a Socket Mode envelope; resolves when the client acks it (by its envelope id). */
  function sendEnvelope(envelope: Record<string, unknown>): Promise<void> {
    const socket = [...sockets][0];
    if (!socket) return Promise.reject(new Error('fake slack: no Socket Mode connection'));
    if (deaf.has(socket))
      return new Promise<void>((acked, failed) => {
        dropped.push({ envelope, acked, failed });
      });
    const envelopeId = `env-${++envelopes}`;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake slack: ${envelopeId} not acked`)), 5_000);
      pendingAcks.set(envelopeId, () => {
        clearTimeout(timer);
        resolve();
      });
      socket.send(JSON.stringify({ ...envelope, envelope_id: envelopeId }));
    });
  }

  const fake: FakeSlack = {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    botUserId,
    teamId,
    calls,
    badAcks,
    uploads,
    callsTo: (method) => calls.filter((call) => call.method === method),
    waitForCall(method, match = () => true, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = calls.find((call) => call.method === method && match(call));
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake slack: no ${method} call within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    messages,
    async waitForMessage(match, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = [...messages.values()].find(match);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`fake slack: no such message within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    interact: (payload) => sendEnvelope({ type: 'interactive', payload, accepts_response_payload: false }),
    command: (payload) => sendEnvelope({ type: 'slash_commands', payload, accepts_response_payload: true }),
    deliver(event, deliverOptions = {}) {
      threadLog.record(event);
      const payload = {
        type: 'event_callback',
        team_id: teamId,
        api_app_id: 'A1',
        event_id: deliverOptions.eventId ?? `Ev${envelopes + 1}`,
        event_time: clock,
        event: { team: teamId, ...event },
      };
      return sendEnvelope({
        type: 'events_api',
        payload,
        accepts_response_payload: false,
        retry_attempt: deliverOptions.retryAttempt ?? 0,
        retry_reason: deliverOptions.retryAttempt ? 'timeout' : '',
      });
    },
    disconnect(how) {
      for (const socket of sockets) {
        if (how === 'drop') socket.terminate();
        else
          socket.send(
            JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake' } }),
          );
      }
    },
    freeze() {
      frozen = true;
      return () => {
        frozen = false;
      };
    },
    deafen() {
      for (const socket of sockets) deaf.add(socket);
    },
    postWithoutEvent(event) {
      threadLog.record(event);
    },
    rateLimit(method, count, retryAfterSeconds) {
      rateLimits.set(method, { count, retryAfterSeconds });
    },
    hold(method) {
      let release = () => {};
      holds.set(
        method,
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return () => {
        holds.delete(method);
        release();
      };
    },
    failFor(method, channel, error) {
      failures.set(`${method} ${channel}`, error);
    },
    recover(method, channel) {
      failures.delete(`${method} ${channel}`);
    },
    connected() {
      if (sockets.size > 0) return Promise.resolve();
      return new Promise((resolve) => connectWaiters.add(resolve));
    },
    get sockets() {
      return sockets.size;
    },
    goDown,
    async comeUp() {
      if (listening) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      listening = true;
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await goDown();
    },
  };
  return fake;
}

/** A `blocks` argument (JSON, as the Web API client sends it) with Slack's `block_id`s added. */
function withBlockIds(blocks: string | undefined): Record<string, unknown>[] {
  if (blocks === undefined || blocks === '') return [];
  const parsed = JSON.parse(blocks) as Record<string, unknown>[];
  return parsed.map((block, index) => ({ block_id: `b${index}`, ...block }));
}

/** Web API arguments: form-encoded (what @slack/web-api sends) or JSON. */
async function readArgs(request: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  if (body === '') return {};
  if ((request.headers['content-type'] ?? '').includes('json'))
    return JSON.parse(body) as Record<string, string>;
  return Object.fromEntries(new URLSearchParams(body));
}

/**
 * POSTs `raw` to an HTTP-mode URL signed as Slack signs it (`v0:<timestamp>:<body>`, HMAC-SHA256 with
 * `signingSecret`, or a given signature); resolves with the HTTP status once the server answered.
 * Events are JSON; interactivity payloads and slash commands are form bodies.
 */
export async function postSignedBody(
  url: string,
  body: { raw: string; contentType: string; headers?: Record<string, string> },
  signingSecret: string,
  options: { timestamp?: number; signature?: string } = {},
): Promise<number> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature =
    options.signature ??
    `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body.raw}`).digest('hex')}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': body.contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
      ...body.headers,
    },
    body: body.raw,
  });
  await response.arrayBuffer();
  return response.status;
}

/** POSTs an Events API body to an HTTP-mode URL, signed with `signingSecret` (or a given signature). */
export function postSignedEvent(
  url: string,
  body: Record<string, unknown>,
  signingSecret: string,
  options: { timestamp?: number; signature?: string; retryNum?: number } = {},
): Promise<number> {
  const headers =
    options.retryNum === undefined ? undefined : { 'x-slack-retry-num': String(options.retryNum) };
  const raw = JSON.stringify(body);
  return postSignedBody(
    url,
    { raw, contentType: 'application/json', ...(headers ? { headers } : {}) },
    signingSecret,
    options,
  );
}

/** An Events API `event_callback` body for HTTP mode. */
export function eventCallback(event: Record<string, unknown>, eventId: string, teamId = 'T1') {
  return {
    type: 'event_callback',
    team_id: teamId,
    api_app_id: 'A1',
    event_id: eventId,
    event_time: 1,
    event,
  };
}
