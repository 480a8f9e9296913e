import { expect } from 'vitest';
import type { TestGateway } from './gateway.js';

export interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Opens the reply event stream and collects its events until it ends. `ended` resolves to
 * 'closed' when the server ended the stream and 'broken' when the connection broke (a killed
 * process), so a test that does not wait for it leaves no unhandled rejection.
 */
export async function openEvents(target: Pick<TestGateway, 'url' | 'token'>, user: string) {
  const response = await fetch(`${target.url}/api/webchat/events?user=${user}`, {
    headers: { authorization: `Bearer ${target.token}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events: StreamEvent[] = [];
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
