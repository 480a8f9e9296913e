export {
  checkStartable,
  describeIssues,
  type LoadStartableResult,
  loadStartable,
  type RunningGateway,
  type StartCheckOptions,
  type StartCheckReport,
  type StartCheckVia,
} from './check-startable.js';
export {
  createGateway,
  type Gateway,
  type GatewayExtensions,
  type GatewayOptions,
} from './create-gateway.js';
export { createGatewayHost, type GatewayHost, type GatewayHostOptions } from './gateway-host.js';
export { resolveHttpToken } from './http-token.js';
export { installSignalHandlers } from './signals.js';
export { makeStateDirPrivate, PRIVATE_UMASK } from './state-dir.js';
export { describeProblem, loadConfiguredToolpacks } from './toolpack-check.js';
