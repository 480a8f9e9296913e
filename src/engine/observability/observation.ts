import type { Tracer } from '@opentelemetry/api';
import type { Metrics } from './metrics.js';

/** What every observer writes to: the host's metrics and the gateway's tracer. */
export interface Observation {
  metrics: Metrics;
  tracer: Tracer;
}
