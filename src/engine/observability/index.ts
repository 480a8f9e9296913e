export { createMetrics, type Metrics, type MetricsOptions, type ScrapeSources } from './metrics.js';
export { type ApprovalEventName, createObserver, type Observer } from './observer.js';
