import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { DeliveryRoute, Outbound, OutboundMessage } from '../../base/messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { TurnEvent, TurnResult } from '../agents/index.js';
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
    const turn = options.runner.runTurn(
      {
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
      },
      {
        yieldSlot: () => input.slot.yield(),
        logger,
        record: (entry) => options.sessions.append(target.sessionKey, scrubEntry(entry, options.scrub)),
        takeSteered: () => {
          const taken = input.takeSteering();
          batch.push(...taken);
          return input.admit(taken);
        },
      },
    );
    for await (const event of turn)
      await forward(event, { outbound, scrub: options.scrub, replies, logger, route: target.route });
    result = await turn.result;
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

/** Where a turn's events go: its route's chat, with secret values removed, its replies kept for the caller. */
interface TurnOutlet {
  outbound: Outbound;
  scrub(text: string): string;
  replies: OutboundMessage[];
  logger: Logger;
  route: DeliveryRoute;
}

/**
 * One event of a turn to its chat: a reply sent (a failed send is logged: the turn goes on), a
 * reply's part while it is written, a round's tool calls as a status line. The rest is the runner's.
 */
async function forward(event: TurnEvent, outlet: TurnOutlet): Promise<void> {
  const { outbound, scrub } = outlet;
  switch (event.type) {
    case 'text_delta':
      return outbound.delta(event.replyId, scrub(event.delta));
    case 'tool_start':
      return outbound.status(scrub(toolStatus(event.calls)));
    case 'reply': {
      const reply = { id: event.message.id, text: scrub(event.message.text) };
      outlet.replies.push(reply);
      await outbound.reply(reply).catch((error: unknown) => {
        outlet.logger.warn({ err: error, route: outlet.route }, 'reply delivery failed');
      });
    }
  }
}

/** The status line of a round's tool calls: "running schedule.once…", "running a, b…". */
function toolStatus(calls: readonly { name: string }[]): string {
  const names = [...new Set(calls.map((call) => call.name))];
  return `running ${names.join(', ')}…`;
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
