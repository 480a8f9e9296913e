import { type HttpServer, SLACK_EVENTS_PATH } from '../surfaces/http/index.js';
import type { Base } from './gateway-types.js';
import type { RestartNotes } from './host-ports.js';
import type { Part } from './part.js';
import type { Turns } from './turns-part.js';

/** What the serving part starts: the HTTP server's URL and the host's restart notes. */
export interface Serving {
  url: string;
  notes: RestartNotes | undefined;
}

/**
 * HTTP listens (the channels are connected by then), then the gateway resumes what the last
 * process left: the approvals (before any turn resumes, a call left waiting finds its request
 * again), the sub-agents, the router's inbox
 * (messages accepted and not answered: a restart's drain, a crash), the scheduler tick (not in
 * safe mode), the host's restart notes. Its stop is the first: the drain.
 */
export function servingPart(): Part<
  { base: Base; turns: Turns; http: HttpServer; stopping: AbortSignal },
  Serving
> {
  let turns: Turns | undefined;
  let notesLoop: Promise<void> | undefined;
  return {
    name: 'serving',
    async start(context) {
      const { base, stopping } = context;
      const { options } = base;
      turns = context.turns;
      const url = await context.http.listen();
      announceStart(base, url);
      await turns.approvals.start();
      await turns.subagents.resume();
      await turns.router.resume();
      // Safe mode runs no schedules (issue 32 §2).
      if (!options.safeMode) turns.scheduler.start();
      const notes = options.restartNotes?.({
        sessions: base.sessions,
        outboundFor: base.channels.outboundFor,
        logger: base.logger,
        signal: stopping,
      });
      notesLoop = notes?.run();
      options.onServing?.({ webchat: base.channels.webchat });
      return { url, notes };
    },
    async stop() {
      await turns?.drain(notesLoop);
    },
  };
}

function announceStart(base: Base, url: string): void {
  const { logger, options, channels, store } = base;
  const { loaded } = options;
  // HTTP mode: until Slack is connected, the listener answers 503 and Slack delivers again.
  if (channels.slack?.eventsListener !== undefined) {
    logger.info(
      { url: `${url}${SLACK_EVENTS_PATH}` },
      "slack events are served here; set Slack's Request URL to this path behind your public address",
    );
  }
  logger.info(
    { store: store.location, config: loaded.path ?? 'built-in defaults', hash: loaded.hash.slice(0, 12) },
    'gateway started',
  );
}
