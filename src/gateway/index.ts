// What the CLI needs of the layers below the gateway (the CLI imports only the gateway and the
// base): doctor's deployment facts.
export type { ChannelCredentialCheck } from '../channels/index.js';
export type { SchedulerHookView } from '../http/index.js';
export { type McpServerStatus, probeMcpServers } from '../mcp/index.js';
export { describeStoreUrl, probeRedisWithoutPassword } from '../store/index.js';
export { describeProblem, describeRunnerSandbox, loadConfiguredToolpacks } from '../toolpacks/index.js';
export { riskSummaryText, unavailableText } from '../tools/index.js';
export { type AgentRiskView, describeAgents, describeRegistry } from './agent-risk.js';
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
export {
  createGateway,
  type Gateway,
  type GatewayExtensions,
  type GatewayOptions,
} from './create-gateway.js';
export { createGatewayHost, type GatewayHost, type GatewayHostOptions } from './gateway-host.js';
export { resolveHttpToken } from './http-token.js';
export { checkGatewayPid, pidFileOf, readGatewayPid, removePidFileSync, writePidFile } from './pid-file.js';
export { recordDueNote, recordShellNote, type ShellNote, withdrawShellNote } from './restart-promises.js';
export { installSignalHandlers } from './signals.js';
export { makeStateDirPrivate, PRIVATE_UMASK } from './state-dir.js';
