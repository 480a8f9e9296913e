import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../base/logging/index.js';
import type { ApprovalRecord, AuditEvent } from './types.js';

export const APPROVALS_AUDIT_FILE = 'approvals-audit.jsonl';

/**
 * Appends one line per event to `<stateDir>/approvals-audit.jsonl`: who asked, who decided, the
 * tool, the arguments' hash (never the arguments: they may hold what the approver saw redacted),
 * the outcome and the time. A line that cannot be written is logged, not thrown: the decision
 * itself is in the store.
 */
export function createApprovalAudit(options: {
  stateDir: string;
  logger: Logger;
  now: () => Date;
  /** Told of each event as it is recorded (the gateway's metrics count them). */
  onEvent?(event: AuditEvent): void;
}) {
  const file = path.join(options.stateDir, APPROVALS_AUDIT_FILE);
  let tail: Promise<void> = Promise.resolve();
  return {
    file,
    record(
      event: AuditEvent,
      record: ApprovalRecord,
      extra: { by?: string; reason?: string } = {},
    ): Promise<void> {
      options.onEvent?.(event);
      const line = {
        at: options.now().toISOString(),
        event,
        id: record.id,
        code: record.code,
        kind: record.kind,
        tool: record.tool,
        agentId: record.agentId,
        sessionKey: record.sessionKey,
        requester: record.requester,
        argumentsHash: record.argumentsHash,
        ...extra,
      };
      // In order: one append after the other.
      tail = tail
        .then(() => appendFile(file, `${JSON.stringify(line)}\n`, { mode: 0o600 }))
        .catch((error: unknown) =>
          options.logger.error({ err: error, file }, 'approvals audit line not written'),
        );
      return tail;
    },
  };
}

export type ApprovalAudit = ReturnType<typeof createApprovalAudit>;
