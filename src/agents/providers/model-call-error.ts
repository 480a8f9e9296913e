import { SwitchboardError } from '../../errors/index.js';

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

  constructor(options: {
    model: string;
    url: string;
    status?: number;
    attempts: number;
    message: string;
    cause?: unknown;
  }) {
    super('MODEL_CALL_FAILED', options.message, { cause: options.cause });
    this.name = 'ModelCallError';
    this.model = options.model;
    this.url = options.url;
    this.status = options.status;
    this.attempts = options.attempts;
  }
}
