import { createHash } from 'node:crypto';

/** What a button decides. */
export type ButtonDecision = 'approve' | 'deny' | 'always';

const DECISIONS: readonly ButtonDecision[] = ['approve', 'deny', 'always'];
/** How much of the arguments hash a button carries: enough that an edited value cannot match. */
const HASH_CHARS = 32;
const VALUE = /^sb1:(ap_[a-z0-9]{12}):(approve|deny|always):([0-9a-f]{32})$/;

/** SHA-256 (hex) of `value` as canonical JSON: object keys sorted, so key order does not matter. */
export function argumentsHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const parts = keys.map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
    );
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A button's value (≤ 100 characters): the request, the decision and the arguments it was shown. */
export function actionValue(approvalId: string, decision: ButtonDecision, hash: string): string {
  return `sb1:${approvalId}:${decision}:${hash.slice(0, HASH_CHARS)}`;
}

/** The parts of a button's value, or undefined when it is not one of ours (or was edited out of shape). */
export function parseActionValue(
  value: string,
): { approvalId: string; decision: ButtonDecision; hash: string } | undefined {
  const match = VALUE.exec(value);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  const decision = match[2] as ButtonDecision;
  return DECISIONS.includes(decision) ? { approvalId: match[1], decision, hash: match[3] } : undefined;
}

/** Whether a button's (shortened) hash is the request's. */
export function hashMatches(buttonHash: string, requestHash: string): boolean {
  return requestHash.slice(0, HASH_CHARS) === buttonHash;
}
