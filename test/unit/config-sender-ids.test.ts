import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';

/** Issue 28 §6: `owners` and `approvals.approvers` are exact sender ids, never patterns. */
describe('sender ids in owners and approvers', () => {
  it('refuses a pattern in owners, naming the field and what to write instead', () => {
    const result = validateConfig({ owners: ['webchat:local', 'slack:*'] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const issue = result.error.find((found) => found.path === '/owners/1');
    expect(issue?.message).toMatch(/"slack:\*" is a pattern/);
    expect(issue?.message).toMatch(/exact sender id/);
  });

  it('refuses a pattern in approvals.approvers too', () => {
    const result = validateConfig({ approvals: { approvers: ['discord:12?4'] } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.map((issue) => issue.path)).toContain('/approvals/approvers/0');
  });

  it('accepts exact ids', () => {
    const result = validateConfig({ owners: ['slack:U123ABC', 'discord:1234', 'webchat:ann.lee'] });
    expect(result.ok).toBe(true);
  });
});
