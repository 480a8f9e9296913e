export { createRunnerHost } from './runner-host.js';
export {
  createRunnerSandbox,
  describeRunnerSandbox,
  NO_SANDBOX_WARNING,
  probeSandbox,
  RUNNER_SANDBOX_SETTINGS,
  type RunnerSandbox,
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
