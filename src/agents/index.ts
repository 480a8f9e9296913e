export { createNoModelRunner } from './no-model-runner.js';
export type { TurnRequest, TurnResult, TurnRunner, TurnStatus } from './types.js';
