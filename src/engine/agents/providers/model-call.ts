import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../base/logging/index.js';
import { ModelCallError } from './model-call-error.js';
import { describeFailure, type SdkErrorClasses, StalledAnswerError } from './model-errors.js';
import { mayFailOver, retryAfterOf, retryDelayMs } from './retry-policy.js';
import type { ModelRequest, ProviderOptions } from './types.js';

/**
 * What both providers share around their SDK calls: retries (see retry-policy.ts; the SDK
 * clients have `maxRetries: 0`), the abort contract, a watchdog for answers that stall, and
 * turning the final failure into a ModelCallError.
 *
 * Timeouts: the SDK's `timeout` (config.timeoutMs) covers each attempt until the response
 * headers arrive, and counts as a retryable failure. Once an answer started streaming, the
 * watchdog allows at most timeoutMs of silence between two events; a stalled answer is never
 * retried, because part of it may already be shown in the chat.
 */

export interface CallTarget {
  /** The config name (`models.<name>`). */
  name: string;
  /** `<provider> <model> at <url>`. */
  description: string;
  /** The base URL as shown to people (see `displayUrl`). */
  url: string;
  apiKey: string | undefined;
  maxRetries: number;
  timeoutMs: number;
  logger: Logger;
  sdkErrors: SdkErrorClasses;
}

/** The target of `options.config` at `baseUrl`, described as `<provider> <model> at <url>`. */
export function createCallTarget(
  options: ProviderOptions,
  baseUrl: string,
  sdkErrors: SdkErrorClasses,
): CallTarget {
  const { name, config, logger } = options;
  const url = displayUrl(baseUrl);
  const description = `${config.provider} ${config.model} at ${url}`;
  const { apiKey, timeoutMs } = config;
  const maxRetries = config.maxRetries ?? 2;
  return { name, description, url, apiKey, maxRetries, timeoutMs, logger, sdkErrors };
}

/** Handed to the provider for each attempt. */
export interface CallHandle {
  /** The request to send: its `onTextDelta` also tells the call that text reached the chat. */
  request: ModelRequest;
  /** For the SDK request: aborted when the request's signal aborts or the answer stalls. */
  signal: AbortSignal;
  /** Call when a stream has begun and on each of its events: the answer is still arriving. */
  alive(): void;
}

export async function runModelCall<T>(
  target: CallTarget,
  request: ModelRequest,
  attempt: (call: CallHandle) => Promise<T>,
): Promise<T> {
  request.signal.throwIfAborted();
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(request.signal.reason);
  request.signal.addEventListener('abort', forwardAbort, { once: true });
  let watchdog: NodeJS.Timeout | undefined;
  let started = false;
  // Text handed on to the chat: from then on no other model may answer this call.
  let shown = false;
  const { onTextDelta } = request;
  const tracked: ModelRequest = onTextDelta
    ? {
        ...request,
        onTextDelta: (delta) => {
          shown = true;
          onTextDelta(delta);
        },
      }
    : request;
  const alive = () => {
    started = true;
    clearTimeout(watchdog);
    watchdog = setTimeout(() => controller.abort(new StalledAnswerError(target.timeoutMs)), target.timeoutMs);
  };
  const maxRetries = request.maxRetries ?? target.maxRetries;
  try {
    for (let count = 1; ; count++) {
      try {
        const result = await attempt({ request: tracked, signal: controller.signal, alive });
        // The SDKs end an aborted stream quietly, so the result may be cut short.
        controller.signal.throwIfAborted();
        return result;
      } catch (caught) {
        const error = controller.signal.aborted ? controller.signal.reason : caught;
        if (request.signal.aborted) throw request.signal.reason;
        const delayMs =
          started || count > maxRetries ? undefined : retryDelayMs(error, count, target.sdkErrors);
        if (delayMs === undefined) throw toModelCallError(target, error, count, { started, shown });
        const { what, status } = describeFailure(error, target.sdkErrors, target.timeoutMs);
        const reason = hideKey(what, target.apiKey);
        const fields = {
          model: target.name,
          url: target.url,
          attempt: count,
          status,
          reason,
          delayMs: Math.round(delayMs),
        };
        target.logger.warn(fields, 'model request failed; retrying');
        // Only the request's signal can abort here (no answer started, so no watchdog).
        await sleep(delayMs, undefined, { signal: controller.signal }).catch(() => {});
        if (request.signal.aborted) throw request.signal.reason;
      }
    }
  } finally {
    clearTimeout(watchdog);
    request.signal.removeEventListener('abort', forwardAbort);
  }
}

function toModelCallError(
  target: CallTarget,
  error: unknown,
  attempts: number,
  answer: { started: boolean; shown: boolean },
): ModelCallError {
  const { what, status } = describeFailure(error, target.sdkErrors, target.timeoutMs);
  const hint = status === 401 || status === 403 ? `; check models.${target.name}.apiKey` : '';
  const count = `${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}`;
  const message = hideKey(
    `Model "${target.name}" (${target.description}) failed: ${what}${hint} (${count}).`,
    target.apiKey,
  );
  const retryAfterMs = retryAfterOf(error, target.sdkErrors);
  return new ModelCallError({
    model: target.name,
    url: target.url,
    status,
    attempts,
    message,
    reason: hideKey(what, target.apiKey),
    // Part of a streamed answer in the chat is never answered twice.
    failover: !answer.shown && mayFailOver(error, target.sdkErrors, answer.started),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    cause: error,
  });
}

/** Servers sometimes quote the key they rejected. */
function hideKey(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.replaceAll(apiKey, '[redacted]') : text;
}

/** A base URL as shown in descriptions and errors: credentials and query removed. */
function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return baseUrl;
  }
}
