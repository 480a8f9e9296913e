export { actionValue, argumentsHash, parseActionValue } from './action-value.js';
export { type Approvals, createApprovals } from './approvals.js';
export { APPROVALS_AUDIT_FILE } from './audit.js';
export { type ApprovalPolicy, approversOf, resolvePolicy, runsAsRuntimeIdentity } from './policy.js';
export type {
  ApprovalKind,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalsOptions,
  AuditEvent,
} from './types.js';
