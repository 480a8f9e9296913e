import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { resolvePolicy, runsAsRuntimeIdentity } from '../../src/engine/approvals/index.js';

function config(extra: Record<string, unknown> = {}) {
  const checked = validateConfig({
    owners: ['slack:U1'],
    agents: { ops: { runtimeAs: 'slack:U1' }, main: {} },
    ...extra,
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  return checked.value;
}

describe('approvals for a runtime turn run as agents.<id>.runtimeAs', () => {
  it('asks nobody for a risky call by default, but an explicit ask or deny holds', () => {
    const plain = config();
    expect(runsAsRuntimeIdentity(plain, 'ops', 'slack:U1', 'internal')).toBe(true);
    // The same owner in a chat, or another agent's wake turn, is not the runtime identity.
    expect(runsAsRuntimeIdentity(plain, 'ops', 'slack:U1', 'slack')).toBe(false);
    expect(runsAsRuntimeIdentity(plain, 'main', 'system:signals', 'internal')).toBe(false);
    expect(resolvePolicy(plain, 'ops', 'shell.exec', true, true)).toBe('auto');
    expect(resolvePolicy(plain, 'ops', 'shell.exec', true, false)).toBe('ask');
    const asking = config({ approvals: { tools: { 'shell.exec': 'ask', 'messages.*': 'deny' } } });
    expect(resolvePolicy(asking, 'ops', 'shell.exec', true, true)).toBe('ask');
    expect(resolvePolicy(asking, 'ops', 'messages.send', true, true)).toBe('deny');
  });
});
