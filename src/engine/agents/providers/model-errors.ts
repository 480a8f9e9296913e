import { STATUS_CODES } from 'node:http';
import { errorText, SwitchboardError } from '../../../base/errors/index.js';

/** An error class of one SDK; both SDKs (Stainless-generated) have the same three. */
type ErrorClass = abstract new (...args: never) => Error;

export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
}

/** Why a call failed, in words for the chat, and the HTTP status when the server answered. */
export interface FailureDescription {
  what: string;
  status?: number;
}

/** Thrown into a call whose answer started but then stopped arriving for `timeoutMs`. */
export class StalledAnswerError extends SwitchboardError {
  constructor(readonly timeoutMs: number) {
    super('MODEL_ANSWER_STALLED', `the answer stalled for ${timeoutMs} ms`);
    this.name = 'StalledAnswerError';
  }
}

const SERVER_MESSAGE_LIMIT = 200;
/** Codes that mean no connection was made at all. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function describeFailure(error: unknown, sdk: SdkErrorClasses, timeoutMs: number): FailureDescription {
  if (error instanceof StalledAnswerError) return { what: error.message };
  if (error instanceof sdk.APIConnectionTimeoutError) return { what: `timed out after ${timeoutMs} ms` };
  if (error instanceof sdk.APIConnectionError) {
    const code = findErrorCode(error);
    if (code && CONNECT_CODES.has(code)) return { what: `could not connect (${code})` };
    return { what: `connection failed (${code ?? oneLine(innermostMessage(error))})` };
  }
  if (error instanceof sdk.APIError) {
    const { status, error: body } = error as Error & { status?: number; error?: unknown };
    // The SDK's own message starts with the status (`500 …`) or says `500 status code (no body)`.
    const sdkMessage = error.message.replace(/^\d{3} /, '').replace(/^status code \(no body\)$/, '');
    const message = oneLine(serverMessage(body) ?? sdkMessage);
    // No status: the server reported an error inside an answer stream that had begun.
    if (status === undefined) return { what: `the server reported an error: ${message}` };
    const reason = STATUS_CODES[status] ?? 'Error';
    return { what: message ? `HTTP ${status} ${reason}: ${message}` : `HTTP ${status} ${reason}`, status };
  }
  const code = findErrorCode(error);
  const message = oneLine(errorText(error));
  // undici ends a body that broke off with `TypeError: terminated` (cause: UND_ERR_SOCKET).
  if (message === 'terminated') return { what: `the connection closed mid-answer (${code ?? 'terminated'})` };
  return { what: code ? `${message} (${code})` : message };
}

/** The error text a server sent: OpenAI `{ error: { message } }` (already unwrapped by the SDK), Anthropic `{ error: { type, message } }`. */
function serverMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (!isRecord(body)) return undefined;
  if (typeof body.message === 'string') return body.message;
  if (isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  return undefined;
}

/** The first `code` (ECONNREFUSED, UND_ERR_SOCKET …) in the cause chain, including AggregateError members. */
function findErrorCode(error: unknown, depth = 0): string | undefined {
  if (!isRecord(error) || depth > 5) return undefined;
  if (typeof error.code === 'string' && error.code) return error.code;
  const nested = [error.cause, ...(Array.isArray(error.errors) ? error.errors : [])];
  for (const inner of nested) {
    const code = findErrorCode(inner, depth + 1);
    if (code) return code;
  }
  return undefined;
}

function innermostMessage(error: Error): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return errorText(current);
}

/** Collapses whitespace so the message stays one line, and cuts it at ~200 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SERVER_MESSAGE_LIMIT ? `${flat.slice(0, SERVER_MESSAGE_LIMIT)}…` : flat;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
