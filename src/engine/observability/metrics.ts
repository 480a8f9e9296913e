import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { createInstruments, type Instruments } from './instruments.js';

/** What the gauges read at each scrape: the running gateway's parts. */
export interface ScrapeSources {
  /** Messages waiting in every session's queue. */
  queueDepth(): number;
  /** Each configured channel's state by name; only `connected` counts as up. */
  channels(): Partial<Record<string, string>>;
  /** How often each channel's connection was found deaf and opened again, since this gateway started. */
  deafReconnects?(): Partial<Record<string, number>>;
}

/**
 * A gateway host's metrics: one prom-client registry (never the global default one), the
 * instruments on it, and the gauges read at each scrape from the gateway that runs now. It is
 * made by the host and outlives the in-process restarts, so counters count from the process's
 * start; each gateway `bind`s its parts while it runs.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly instruments: Instruments;
  /** The running gateway's parts, until the returned function is called (at its stop). */
  bind(sources: ScrapeSources): () => void;
  /** The Prometheus text exposition of every metric. */
  text(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** The process's CPU, memory, event loop and GC metrics (prom-client's defaults); default true. */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'switchboard_' });
  const instruments = createInstruments(registry);
  let sources: ScrapeSources | undefined;
  new Gauge({
    name: 'switchboard_queue_depth',
    help: 'Messages waiting in the session queues (behind a running turn), read at each scrape.',
    registers: [registry],
    collect() {
      this.set(sources?.queueDepth() ?? 0);
    },
  });
  new Gauge({
    name: 'switchboard_channel_connected',
    help: 'Whether each configured chat channel is connected (1) or not (0), read at each scrape.',
    labelNames: ['channel'] as const,
    registers: [registry],
    collect() {
      // A channel a restart removed from the config is no longer reported.
      this.reset();
      const states = sources?.channels() ?? {};
      for (const [channel, state] of Object.entries(states))
        this.set({ channel }, state === 'connected' ? 1 : 0);
    },
  });
  /** What the bound gateway's supervisor had counted at the last scrape, per channel. */
  let deafSeen = new Map<string, number>();
  new Counter({
    name: 'switchboard_channel_deaf_reconnects_total',
    help: 'Connections found deaf (open, hearing nothing while the platform showed messages) and opened again, by channel; counted at each scrape.',
    labelNames: ['channel'] as const,
    registers: [registry],
    collect() {
      for (const [channel, count = 0] of Object.entries(sources?.deafReconnects?.() ?? {})) {
        const added = count - (deafSeen.get(channel) ?? 0);
        // Every channel has its series from the first scrape, at 0 until it was found deaf.
        this.inc({ channel }, Math.max(0, added));
        deafSeen.set(channel, count);
      }
    },
  });
  return {
    registry,
    instruments,
    bind(bound) {
      sources = bound;
      // A new gateway's supervisor counts from 0: the counter goes on from where it was.
      deafSeen = new Map();
      return () => {
        if (sources === bound) sources = undefined;
      };
    },
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
