// A server-sent event stream read with fetch (so the cookie authenticates it and a 401 is seen),
// reconnecting after a drop. The chat and the sessions pages each open one. A 401 ends the stream
// and tells the app (SIGNED_OUT_EVENT, as `api` does), which shows the sign-in page.
import { SIGNED_OUT_EVENT } from './api.js';

export type StreamState = 'connecting' | 'connected' | 'reconnecting' | 'signed-out';

export interface StreamOptions {
  onEvent(type: string, data: unknown): void;
  onState?(state: StreamState): void;
  /** Wait before reconnecting (ms). */
  retryMs?: number;
}

/** What a page says about its stream, for a status line; `senderId` is who it is read as. */
export function streamStateText(state: StreamState, senderId: string): string {
  switch (state) {
    case 'connected':
      return `connected as ${senderId}`;
    case 'connecting':
      return 'connecting…';
    case 'reconnecting':
      return 'disconnected; reconnecting…';
    case 'signed-out':
      return 'not signed in';
  }
}

/** Opens the stream at `url`; the returned function closes it for good. */
export function openEventStream(url: string, options: StreamOptions): () => void {
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const connect = async () => {
    controller = new AbortController();
    const { signal } = controller;
    options.onState?.('connecting');
    try {
      const response = await fetch(url, { signal });
      if (response.status === 401) {
        options.onState?.('signed-out');
        window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
        return;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      options.onState?.('connected');
      await readBlocks(response.body, options.onEvent);
    } catch (error) {
      if (signal.aborted) return;
      console.warn('event stream failed', error);
    }
    if (closed) return;
    options.onState?.('reconnecting');
    timer = setTimeout(connect, options.retryMs ?? 2000);
  };
  void connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    controller?.abort();
  };
}

async function readBlocks(
  body: ReadableStream<BufferSource>,
  onEvent: StreamOptions['onEvent'],
): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let boundary = buffer.indexOf('\n\n'); boundary >= 0; boundary = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      let type = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) type = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data) onEvent(type, JSON.parse(data));
    }
  }
}
