import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * `fetch` for a streamable HTTP server whose successful answers stop at `maxBytes`: a JSON body as a
 * whole, an event stream per event (the count restarts after each blank line, so a long-lived
 * stream is not cut). Past the limit a JSON body fails with `tooLarge`; an event stream answering
 * requests ends with an error answer (`tooLarge`) to each request it answers, its partial event
 * dropped (an event type the SDK ignores), so the call fails at once and the session stays; the
 * GET stream (no request) fails and the SDK opens it again. Redirects and errors pass unchanged.
 */
export function boundedFetch(maxBytes: number, tooLarge: string): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.ok || !response.body) return response;
    const perEvent = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const ids = perEvent ? requestIds(init?.body) : [];
    let count = 0;
    let endedWithNewline = false;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const end = perEvent ? lastEventEnd(chunk, endedWithNewline) : -1;
        count = end === -1 ? count + chunk.length : chunk.length - end - 1;
        endedWithNewline = chunk.at(-1) === NEWLINE;
        if (count <= maxBytes) return controller.enqueue(chunk);
        if (ids.length === 0) return controller.error(new Error(tooLarge));
        // The events before the oversize one, the oversize one dropped, then an error per request.
        if (end !== -1) controller.enqueue(chunk.subarray(0, end + 1));
        const answers = ids.map((id) => `data: ${JSON.stringify(errorAnswer(id, tooLarge))}\n\n`);
        controller.enqueue(new TextEncoder().encode(`\nevent: dropped\n\n${answers.join('')}`));
        controller.terminate();
      },
    });
    return new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function errorAnswer(id: string | number, message: string) {
  return { jsonrpc: '2.0', id, error: { code: -32603, message } };
}

/** The ids of the JSON-RPC requests a POST carried (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap(
      (message: { id?: unknown; method?: unknown }) =>
        typeof message?.method === 'string' &&
        (typeof message.id === 'string' || typeof message.id === 'number')
          ? [message.id]
          : [],
    );
  } catch {
    return [];
  }
}

/** The index of the last newline in `chunk` that ends an event (a blank line follows the event), or -1. */
function lastEventEnd(chunk: Uint8Array, endedWithNewline: boolean): number {
  for (let index = chunk.length - 1; index >= 0; index -= 1) {
    if (chunk[index] !== NEWLINE) continue;
    const before = index > 0 ? chunk[index - 1] : endedWithNewline ? NEWLINE : undefined;
    const crlf = before === CARRIAGE_RETURN && (index > 1 ? chunk[index - 2] === NEWLINE : endedWithNewline);
    if (before === NEWLINE || crlf) return index;
  }
  return -1;
}
