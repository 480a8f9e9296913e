import path from 'node:path';
import { resolvePrincipal } from '../base/access/index.js';
import { DEFAULT_CONFIG_PATH } from '../base/config/index.js';
import { createObserver, type Observer, type ScrapeSources } from '../engine/observability/index.js';
import { createUsageLedger } from '../engine/usage/index.js';
import {
  createRunStore,
  createSessionEvents,
  createSessionStore,
  type QueueStatus,
} from '../records/sessions/index.js';
import { createStore, type Store } from '../records/store/index.js';
import type { GatewayOptions, Storage } from './gateway-types.js';
import type { Part } from './part.js';

/** What the metrics part starts: the observer and the binding of the scrape-time sources. */
export interface Observing {
  /** Wraps parts so they are counted and traced; absent when the host collects no metrics. */
  observer: Observer | undefined;
  /** Binds the gauges read at each scrape to this gateway (unbound when it stops). */
  bind(sources: ScrapeSources): void;
}

/** The observer of this gateway's parts; its stop unbinds the scrape-time gauges, last of all. */
export function metricsPart(): Part<GatewayOptions, Observing> {
  let unbind: (() => void) | undefined;
  return {
    name: 'metrics',
    async start(options) {
      const { metrics, loaded } = options;
      const observer = metrics ? createObserver({ metrics, config: loaded.config }) : undefined;
      return {
        observer,
        bind: (sources) => {
          unbind = observer?.bind(sources);
        },
      };
    },
    async stop() {
      unbind?.();
    },
  };
}

/**
 * The store, the session and run records (runs the last process left running are marked), the
 * usage ledger. The session store is observed by the session events bus (the control UI's live
 * view), which reads turn statuses through `status` (the turn port: idle until the router is connected).
 */
export function storagePart(): Part<
  { options: GatewayOptions; metrics: Observing; status(sessionKey: string): QueueStatus },
  Storage
> {
  let opened: Store | undefined;
  return {
    name: 'storage',
    async start({ options, metrics, status }) {
      const { observer } = metrics;
      const { config } = options.loaded;
      const logger = options.log.logger;
      const stateDir = path.resolve(config.stateDir);
      const store = await createStore({ url: config.store.url, stateDir, logger });
      opened = store;
      // Namespaces in this order: each takes a connection, and the open-file counts of the restart
      // tests expect the store's first one (open already) to go to the sessions.
      const sessionEvents = createSessionEvents({ status });
      const sessions = sessionEvents.observe(createSessionStore({ store }));
      const runs = createRunStore({ store });
      const usage = createUsageLedger({
        store,
        timeZone: config.budgets.timeZone,
        ...(options.now ? { now: options.now } : {}),
        personOf: (userId) => resolvePrincipal(config, userId).personId,
      });
      const interrupted = await runs.markInterrupted();
      if (interrupted.length > 0)
        logger.warn({ runs: interrupted.map((run) => run.runId) }, 'runs interrupted by the last stop');
      const configPath = options.loaded.path ?? DEFAULT_CONFIG_PATH;
      return {
        options,
        config,
        logger,
        stateDir,
        configPath,
        store,
        sessions,
        sessionEvents,
        runs,
        usage,
        observer,
      };
    },
    // Messages that arrived during the drain were stored before this: the parts after it stopped first.
    async stop() {
      await opened?.close();
    },
  };
}
