import { errorText } from '../../base/errors/index.js';
import type { OutboundMessage } from '../../base/messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { TurnResult } from '../agents/index.js';
import type { PendingMessage, QueueTarget, SessionQueuesOptions } from './queue-types.js';
import type { SlotHold } from './turn-slots.js';

export interface QueueTurnInput {
  options: SessionQueuesOptions;
  target: QueueTarget;
  /** The messages the turn answers; steered ones it takes are added. */
  batch: PendingMessage[];
  isOwner: boolean;
  signal: AbortSignal;
  /** The turn's global slot: given back while it waits for a human. */
  slot: SlotHold;
  /** The stop cut the turn short before it started: it ends `interrupted`, its messages unwritten. */
  stopped: boolean;
  /** Writes messages to the transcript (in order) as the turn takes them. */
  admit(messages: PendingMessage[]): Promise<TranscriptEntry[]>;
  /** The steered messages that arrived since the last call. */
  takeSteering(): PendingMessage[];
}

/**
 * Runs one turn of a session queue: its messages go to the transcript as it starts, then the runner answers
 * them; replies and records have secret values removed. A turn aborted before it started (`/stop`)
 * still records its messages; a turn that throws tells the chat why. Never throws for a turn.
 */
export async function runQueueTurn(
  input: QueueTurnInput,
): Promise<{ result: TurnResult; replies: OutboundMessage[] }> {
  const { options, target, batch, signal } = input;
  const logger = options.logger.child({ session: target.sessionKey });
  const outbound = options.outboundFor(target.route);
  const replies: OutboundMessage[] = [];
  const first = batch[0];
  if (!first) return { result: { status: 'done' }, replies };
  if (signal.aborted) {
    if (!input.stopped) await input.admit(batch).catch(() => {});
    return { result: { status: input.stopped ? 'interrupted' : 'killed' }, replies };
  }
  let result: TurnResult;
  try {
    const messages = await input.admit(batch);
    result = await options.runner.runTurn({
      sessionKey: target.sessionKey,
      agentId: target.agentId,
      agent: target.agent,
      route: target.route,
      depth: target.depth,
      ...(target.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: target.runTimeoutSeconds }),
      messages,
      senderId: first.senderId,
      ...(batch.some((message) => message.resumed) ? { resumed: true } : {}),
      ...(first.chargedTo === undefined ? {} : { chargedTo: first.chargedTo }),
      isOwner: input.isOwner,
      signal,
      yieldSlot: () => input.slot.yield(),
      logger,
      onDelta: (id, delta) => outbound.delta(id, options.scrub(delta)),
      onStatus: (text) => outbound.status(options.scrub(text)),
      reply: async (message) => {
        const reply = { id: message.id, text: options.scrub(message.text) };
        replies.push(reply);
        await outbound.reply(reply).catch((error: unknown) => {
          logger.warn({ err: error, route: target.route }, 'reply delivery failed');
        });
      },
      record: (entry) => options.sessions.append(target.sessionKey, scrubEntry(entry, options.scrub)),
      takeSteered: () => {
        const taken = input.takeSteering();
        batch.push(...taken);
        return input.admit(taken);
      },
    });
  } catch (error) {
    logger.error({ err: error }, 'turn failed');
    const reply = { id: crypto.randomUUID(), text: options.scrub(`The turn failed: ${errorText(error)}`) };
    replies.push(reply);
    result = { status: 'error' };
    await outbound.reply(reply).catch(() => {});
  }
  logger.debug({ status: result.status, messages: batch.length, replies: replies.length }, 'turn ended');
  return { result, replies };
}

export function scrubEntry(entry: NewTranscriptEntry, scrub: (text: string) => string): NewTranscriptEntry {
  return {
    ...entry,
    text: scrub(entry.text),
    ...(entry.toolCalls
      ? { toolCalls: entry.toolCalls.map((call) => ({ ...call, arguments: scrub(call.arguments) })) }
      : {}),
  };
}
