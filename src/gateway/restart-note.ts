import type { DeliveryRoute, OutboundMessage } from '../channels/index.js';
import type { Logger } from '../logging/index.js';
import type { SessionStore } from '../sessions/index.js';
import { type SentinelPayload, takeRestartSentinel } from './restart-sentinel.js';

const ATTEMPTS = 5;
const FIRST_RETRY_MS = 500;

export interface RestartNoteOptions {
  stateDir: string;
  sessions: SessionStore;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  logger: Logger;
  /** Ends the retries when the gateway stops. */
  signal: AbortSignal;
}

/** The note goes into the session too, so the agent knows; a session only commands touched is created. */
async function recordNote(
  options: RestartNoteOptions,
  sessionKey: string | undefined,
  route: DeliveryRoute | undefined,
  text: string,
): Promise<void> {
  const agentId = /^agent:([^:]+):/.exec(sessionKey ?? '')?.[1];
  if (!sessionKey || !agentId) return;
  try {
    const existing = await options.sessions.get(sessionKey);
    if (!existing && !route) return;
    if (!existing && route) await options.sessions.ensure(sessionKey, { agentId, route });
    await options.sessions.append(sessionKey, { role: 'system', text });
  } catch (error) {
    options.logger.warn({ err: error, session: sessionKey }, 'could not add the restart note to the session');
  }
}

export function restartNoteText(payload: SentinelPayload): string {
  return payload.message
    ? `Gateway restarted (${payload.kind}): ${payload.message}`
    : `Gateway restarted (${payload.kind}).`;
}

/**
 * After a start: takes the restart sentinel (if any), appends its note to the session as a
 * system entry (so the agent knows) and posts it to the recorded chat route, retrying with
 * backoff. Never throws: a note that cannot be delivered is logged.
 */
export async function deliverRestartNote(options: RestartNoteOptions): Promise<void> {
  const { logger } = options;
  const payload = await takeRestartSentinel(options.stateDir, logger);
  if (!payload) return;
  const text = restartNoteText(payload);
  logger.info({ kind: payload.kind, session: payload.sessionKey }, 'delivering the restart note');
  const route = payload.route;
  const target: DeliveryRoute | undefined = route && {
    channel: route.channel,
    chatType: route.chatType,
    chatId: route.target,
    ...(route.thread === undefined ? {} : { threadId: route.thread }),
  };
  await recordNote(options, payload.sessionKey, target, text);
  if (!target) return;
  const message: OutboundMessage = { id: crypto.randomUUID(), text, notice: true };
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      await options.deliver(target, message);
      return;
    } catch (error) {
      if (attempt === ATTEMPTS || options.signal.aborted) {
        logger.error({ err: error, route: target }, 'could not deliver the restart note');
        return;
      }
      const delayMs = FIRST_RETRY_MS * 2 ** (attempt - 1);
      logger.warn({ err: error, attempt, delayMs }, 'restart note delivery failed; retrying');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        options.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }
}
