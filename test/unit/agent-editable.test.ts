import { describe, expect, it } from 'vitest';
import { findAgentEditDecisions, refusedAgentEdit } from '../../src/base/config/index.js';

/**
 * The model's `gateway` tool edits only what the schema marks `x-agent-editable: true` (an allow
 * list: src/base/config/agent-editable.ts). Every path of the schema carries a decision, on itself or
 * on an object above it; these tests fail when a path is added without one, and when a path
 * becomes editable by inheritance (a new key under an editable object) without being listed here.
 */

/** Every schema path the model may change, decided on purpose. Add to it only after asking "could this hurt?". */
const EDITABLE = [
  'agents.*.displayName',
  'agents.*.model',
  'agents.*.systemPrompt',
  'agents.*.skills',
  'models.*.model',
  'models.*.maxTokens',
  'models.*.temperature',
  'models.*.stream',
  'models.*.images',
  'models.*.maxRetries',
  'models.*.timeoutMs',
  'models.*.fallbacks',
  'models.*.contextTokens',
  'routes.*',
  'session.queueMode',
  'agentLoop.failoverNotice',
];

describe('what the model may edit', () => {
  it('every schema path has a decision (x-agent-editable on it or on an object above it)', () => {
    const undecided = findAgentEditDecisions()
      .filter((leaf) => leaf.editable === undefined)
      .map((leaf) => leaf.path);
    expect(undecided, 'mark each with x-agent-editable: true or false in src/base/config/schema*.ts').toEqual(
      [],
    );
  });

  it('the editable paths are exactly the decided list', () => {
    const editable = findAgentEditDecisions()
      .filter((leaf) => leaf.editable === true)
      .map((leaf) => leaf.path);
    expect(editable.sort()).toEqual([...EDITABLE].sort());
  });

  it('names the first path the edit changes that is not editable, deepest first', () => {
    const previous = { agents: { main: { model: 'a' } }, tools: { web: { allowPrivate: false } } };
    expect(refusedAgentEdit(previous, { ...previous, agents: { main: { model: 'b' } } }, [])).toBeUndefined();
    expect(refusedAgentEdit(previous, { ...previous, tools: { web: { allowPrivate: true } } }, [])).toEqual({
      path: 'tools.web.allowPrivate',
      known: true,
    });
    // A new object is decided leaf by leaf: a new agent's prompt may be written, its tools not.
    expect(
      refusedAgentEdit(previous, { ...previous, agents: { ...previous.agents, ops: { tools: ['*'] } } }, []),
    ).toEqual({ path: 'agents.ops.tools', known: true });
    // A removal counts as a change of what it removes.
    expect(refusedAgentEdit(previous, { agents: previous.agents }, [])).toEqual({
      path: 'tools.web.allowPrivate',
      known: true,
    });
    // A key the schema does not know has no decision: refused (the schema would refuse it too).
    expect(refusedAgentEdit(previous, { ...previous, colour: 'red' }, [])).toEqual({
      path: 'colour',
      known: false,
    });
  });

  it("an owner's agentEditable list opens a path or a subtree, with * for any key", () => {
    const previous = { tools: { web: { allowPrivate: false } }, agents: { main: {} } };
    const next = { tools: { web: { allowPrivate: true } }, agents: { main: { tools: ['web.*'] } } };
    expect(refusedAgentEdit(previous, next, ['tools.web'])).toEqual({
      path: 'agents.main.tools',
      known: true,
    });
    expect(refusedAgentEdit(previous, next, ['tools.web', 'agents.*.tools'])).toBeUndefined();
    expect(refusedAgentEdit(previous, next, ['tools.web.allowPrivate.deeper', 'agents.*.tools'])).toEqual({
      path: 'tools.web.allowPrivate',
      known: true,
    });
  });
});
