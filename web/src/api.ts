// Every call of the control UI to the gateway's API. Authentication is the HttpOnly cookie the
// sign-in set; a 401 answer tells the app (SIGNED_OUT_EVENT), which shows the sign-in page.

/** Dispatched on `window` when the API answers 401: the app shows the sign-in page. */
export const SIGNED_OUT_EVENT = 'switchboard:signed-out';

/** A refusal of the API: its status, its message (which names what is wrong) and the field, if any. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** GETs `path`, or POSTs `body` as JSON; resolves with the answer, rejects with an ApiError. */
export async function api<T>(
  path: string,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<T> {
  const init: RequestInit =
    body === undefined
      ? { method }
      : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, `The gateway did not answer (${(error as Error).message}); is it running?`);
  }
  const answer = (await response.json().catch(() => ({}))) as { message?: string; field?: string };
  if (response.status === 401) window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  if (!response.ok)
    throw new ApiError(response.status, answer.message ?? `HTTP ${response.status}`, answer.field);
  return answer as T;
}

/** A message for the page from anything thrown by `api` (or a bug). */
export function problemText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
