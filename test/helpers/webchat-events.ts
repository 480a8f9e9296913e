import { expect } from 'vitest';
import type { TestGateway } from './gateway.js';

export interface StreamEvent<Data = Record<string, unknown>> {
  type: string;
  data: Data;
}

/**
 * Opens an event stream and collects its events until it ends: by default the web chat's reply
 * stream of `user`; `path` names another (`/api/events`, the session events: then `user` may be
 * undefined, and no `?user=` is sent). `ended` resolves to 'closed' when the server ended the
 * stream and 'broken' when the connection broke (a killed process), so a test that does not wait
 * for it leaves no unhandled rejection. `Data` is what the test expects each event's data to be.
 */
export async function openEvents<Data = Record<string, unknown>>(
  target: Pick<TestGateway, 'url' | 'token'>,
  user: string | undefined,
  path = '/api/webchat/events',
) {
  const query = user === undefined ? '' : `?user=${encodeURIComponent(user)}`;
  const response = await fetch(`${target.url}${path}${query}`, {
    headers: { authorization: `Bearer ${target.token}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events: StreamEvent<Data>[] = [];
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async (): Promise<'closed' | 'broken'> => {
    let buffer = '';
    for (;;) {
      const chunk = await reader?.read().catch(() => undefined);
      if (!chunk) return 'broken';
      if (chunk.done) return 'closed';
      buffer += chunk.value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (type && data) events.push({ type, data: JSON.parse(data) });
      }
    }
  })();
  return { events, ended };
}
