export { createRunnerHost } from './runner-host.js';
export {
  createRunnerSandbox,
  describeRunnerSandbox,
  NO_SANDBOX_WARNING,
  type RunnerSandbox,
} from './runner-sandbox.js';
export {
  probeSandbox,
  RUNNER_SANDBOX_SETTINGS,
  type RunnerSandboxSetting,
  type SandboxProbe,
} from './sandbox.js';
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
