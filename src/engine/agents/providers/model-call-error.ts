import { SwitchboardError } from '../../../base/errors/index.js';

/**
 * A model call that failed for good (after retries): the message is written for the chat,
 * naming the model and the URL, e.g.
 * `Model "local" (openai llama3 at http://127.0.0.1:11434/v1) failed: could not connect (ECONNREFUSED) (3 attempts).`
 */
export class ModelCallError extends SwitchboardError {
  readonly model: string;
  readonly url: string;
  /** HTTP status when the server answered. */
  readonly status: number | undefined;
  readonly attempts: number;
  /** Why, in a few words for a notice (`HTTP 429 Too Many Requests: …`), the key hidden. */
  readonly reason: string;
  /**
   * The next model of the chain may be tried: a 429, an overload (529), a 5xx, a timeout or a
   * connection failure before the answer began, or an overload reported inside a begun stream.
   * Never for a 400/401/403/404, a content error, or once some of the answer's text reached the chat.
   */
  readonly failover: boolean;
  /** The server's `retry-after-ms` / `retry-after`, when it sent one (a 429 puts the model in cooldown). */
  readonly retryAfterMs: number | undefined;

  constructor(options: {
    model: string;
    url: string;
    status?: number;
    attempts: number;
    message: string;
    reason?: string;
    failover?: boolean;
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    super('MODEL_CALL_FAILED', options.message, { cause: options.cause });
    this.name = 'ModelCallError';
    this.model = options.model;
    this.url = options.url;
    this.status = options.status;
    this.attempts = options.attempts;
    this.reason = options.reason ?? options.message;
    this.failover = options.failover ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}
