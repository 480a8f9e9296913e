// The host above the app: the process's gateway across restarts, the start check, the state dir,
// the HTTP token, the pid file, OS signals and the restart notes of the shell CLI.

// `switchboard setup` proves a model with one call, as the start check proves a platform's tokens.
export { PROBE_TIMEOUT_MS, probeModel } from '../engine/agents/index.js';
export {
  checkStartable,
  describeIssues,
  type LoadStartableResult,
  loadStartable,
  type RunningGateway,
  type StartableConfig,
  type StartCheckOptions,
  type StartCheckReport,
  type StartCheckVia,
  type UnstartableConfig,
} from './check-startable.js';
export { createGatewayHost, type GatewayHost, type GatewayHostOptions } from './gateway-host.js';
export { createHostUpdates, recordUpdateNote } from './host-updates.js';
export { resolveHttpToken } from './http-token.js';
export { checkGatewayPid, pidFileOf, readGatewayPid, removePidFileSync, writePidFile } from './pid-file.js';
export { installSignalHandlers } from './process-signals.js';
export { recordShellNote, type ShellNote, withdrawShellNote } from './restart-promises.js';
export { makeStateDirPrivate, PRIVATE_UMASK } from './state-dir.js';
