export { createRunnerHost } from './runner-host.js';
export type {
  RunnerActivation,
  RunnerCallRequest,
  RunnerCallResult,
  RunnerHost,
  RunnerHostOptions,
  RunnerSignalRequest,
  RunnerSupportRequest,
  ToolOutput,
} from './types.js';
