import type { FastifyReply } from 'fastify';

/** A comment line every this often keeps proxies and browsers from timing an idle stream out. */
const HEARTBEAT_MS = 15_000;

/** An open server-sent-events answer: `send` writes one event (nothing once ended). */
export interface EventStream {
  send(type: string, data: unknown): void;
  /** Ends the answer; the client sees the stream close (and may reconnect). */
  end(): void;
}

export interface EventStreamOptions {
  /** The `ready` event's data, sent first. */
  ready: unknown;
  /**
   * Called once `ready` is sent, with the stream to write to; what it returns runs once when the
   * connection closes, by either side (unsubscribe there).
   */
  subscribe(stream: EventStream): () => void;
}

/**
 * Takes the answer over from fastify (`reply.hijack()`) and opens a server-sent-events stream on
 * it: the headers, the `ready` event, `subscribe`, a heartbeat comment every 15 s, and on close
 * the heartbeat stopped and `subscribe`'s clean-up run. Events are `event: <type>\ndata: <JSON>\n\n`.
 */
export function startEventStream(reply: FastifyReply, options: EventStreamOptions): EventStream {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  const write = (chunk: string) => {
    if (!response.writableEnded) response.write(chunk);
  };
  const stream: EventStream = {
    send: (type, data) => write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`),
    end: () => {
      if (!response.writableEnded) response.end();
    },
  };
  stream.send('ready', options.ready);
  const unsubscribe = options.subscribe(stream);
  const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
  response.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
  return stream;
}
