import { describe, expect, it } from 'vitest';
import { createActivationRegistry } from '../../src/extensions/toolpacks/activations.js';

describe('callSupport checks', () => {
  const running = new Set(['run-1', 'run-2']);
  const registry = createActivationRegistry({
    isRunning: async (runId) => running.has(runId),
    toolpackOf: (tool) => ({ 'review.summarize': 'review-tools', 'plan.create': 'plan' })[tool],
    allows: (agentId, tool) => agentId === 'reviewer' || tool !== 'review.summarize',
  });
  const reviewer = registry.forRun({
    runId: 'run-1',
    agentId: 'reviewer',
    sessionKey: 'agent:reviewer:main',
  });
  const request = {
    activation: reviewer,
    agentId: 'reviewer',
    toolpackId: 'review-tools',
    tool: 'review.summarize',
  };

  it('accepts a valid call and gives one activation per run', async () => {
    expect(await registry.check(request)).toMatchObject({ ok: true, value: { runId: 'run-1' } });
    expect(registry.forRun({ runId: 'run-1', agentId: 'reviewer', sessionKey: 'x' })).toBe(reviewer);
  });

  it('refuses each broken rule with its own message, in order', async () => {
    const forged = await registry.check({ ...request, activation: { ...reviewer, token: 'forged' } });
    expect(forged).toEqual({ ok: false, error: 'callSupport refused: the activation token is not valid.' });
    const unknown = await registry.check({
      ...request,
      activation: { activationId: 'act_x', token: reviewer.token },
    });
    expect(unknown).toEqual(forged);

    const other = await registry.check({ ...request, agentId: 'pm' });
    expect(other).toEqual({
      ok: false,
      error: `callSupport refused: activation ${reviewer.activationId} belongs to agent "reviewer", not "pm".`,
    });

    const ended = registry.forRun({ runId: 'run-9', agentId: 'reviewer', sessionKey: 'agent:reviewer:main' });
    expect(await registry.check({ ...request, activation: ended })).toEqual({
      ok: false,
      error: `callSupport refused: activation ${ended.activationId} has ended.`,
    });

    expect(await registry.check({ ...request, tool: 'plan.create' })).toEqual({
      ok: false,
      error: 'callSupport refused: tool "plan.create" is not part of toolpack "review-tools".',
    });

    const pm = registry.forRun({ runId: 'run-2', agentId: 'pm', sessionKey: 'agent:pm:main' });
    expect(await registry.check({ ...request, activation: pm, agentId: 'pm' })).toEqual({
      ok: false,
      error: 'callSupport refused: tool "review.summarize" is not in agent "pm"\'s allowlist.',
    });
  });
});
