import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { SubagentManager } from '../../src/engine/subagents/index.js';
import type { Tool } from '../../src/engine/tools/index.js';
import {
  childRequests,
  gate,
  sessionOf,
  toolNames,
  toolResults,
  userTexts,
} from '../fakes/subagent-script.js';
import { childAsked, PARENT, setup, spawn } from './subagents-harness.js';

/**
 * The `subagents` tool end to end, driven by the parent's fake model: target resolution and its
 * errors, what another session sees, kill (with cascades) and steer (injected, restarted, refused).
 */

describe('the subagents tool: targets', () => {
  it('resolves every rung, reports each error, and shows a session only its own children', async () => {
    const { gateway, model, script, useTool, useTools } = await setup();
    const labels = ['alpha-report', 'alpha-summary', 'Dup', 'dup', 'gamma'];
    for (const label of labels) script.child(`task of ${label}`, { hang: true });
    const spawned = await useTools(labels.map((label) => spawn(`task of ${label}`, label)));
    expect(spawned.map((result) => result.status)).toEqual(labels.map(() => 'accepted'));
    for (const label of labels) await childAsked(model, `task of ${label}`);
    const byLabel = Object.fromEntries(labels.map((label, index) => [label, spawned[index]]));

    const list = await useTool('subagents', {});
    expect(list).toMatchObject({ status: 'ok', action: 'list', total: 5, recent: [] });
    // Most recently started first.
    expect(list.active.map((entry: any) => [entry.index, entry.label, entry.status])).toEqual([
      [1, 'gamma', 'running'],
      [2, 'dup', 'running'],
      [3, 'Dup', 'running'],
      [4, 'alpha-summary', 'running'],
      [5, 'alpha-report', 'running'],
    ]);
    expect(list.text).toMatch(/^Active:\n\[1\] gamma \(running, \d+s\)\n\[2\] dup \(running, \d+s\)\n/);

    const kill = (target: string) => ({ name: 'subagents', arguments: { action: 'kill', target } });
    const errors = await useTools([
      kill('6'),
      kill('0'),
      kill('agent:main:subagent:no-such-child'),
      kill('DUP'),
      kill('alpha'),
      kill('zzz'),
      {
        name: 'subagents',
        arguments: { action: 'steer', target: 'gamma', message: 'x'.repeat(4001) },
      },
    ]);
    expect(errors).toEqual([
      { status: 'error', action: 'kill', target: '6', error: 'Invalid index: 6' },
      { status: 'error', action: 'kill', target: '0', error: 'Invalid index: 0' },
      {
        status: 'error',
        action: 'kill',
        target: 'agent:main:subagent:no-such-child',
        error: 'Unknown session: agent:main:subagent:no-such-child',
      },
      { status: 'error', action: 'kill', target: 'DUP', error: 'Ambiguous label: DUP' },
      { status: 'error', action: 'kill', target: 'alpha', error: 'Ambiguous label prefix: alpha' },
      { status: 'error', action: 'kill', target: 'zzz', error: 'Unknown target: zzz' },
      {
        status: 'error',
        action: 'steer',
        target: 'gamma',
        error: 'Message too long (4001 chars, max 4000).',
      },
    ]);

    const steer = (target: string) => ({
      name: 'subagents',
      arguments: { action: 'steer', target, message: `steered via ${target}` },
    });
    // A prefix of digits only would be read as an index (the earlier rung): extend it past its first non-digit.
    const dupRunId = String(byLabel.Dup.runId);
    const runIdPrefix = dupRunId.slice(0, Math.max(8, (/^\d*\D/.exec(dupRunId)?.[0] ?? '').length));
    const steered = await useTools([
      steer('last'),
      steer('2'),
      steer(byLabel['alpha-report'].childSessionKey),
      steer('ALPHA-S'),
      steer(runIdPrefix),
    ]);
    expect(steered.map((result) => [result.status, result.label, result.mode])).toEqual([
      ['ok', 'gamma', 'injected'],
      ['ok', 'dup', 'injected'],
      ['ok', 'alpha-report', 'injected'],
      ['ok', 'alpha-summary', 'injected'],
      ['ok', 'Dup', 'injected'],
    ]);
    for (const [index, label] of ['gamma', 'dup', 'alpha-report', 'alpha-summary', 'Dup'].entries()) {
      expect(steered[index]).toMatchObject({
        runId: byLabel[label].runId,
        sessionKey: byLabel[label].childSessionKey,
        text: 'Message sent to subagent.',
      });
    }
    // Exact label, case-insensitive, wins over the prefix it also is.
    expect(await useTool('subagents', { action: 'kill', target: 'GAMMA' })).toMatchObject({
      status: 'ok',
      label: 'gamma',
      runId: byLabel.gamma.runId,
      killed: 1,
      text: 'killed gamma.',
    });

    // Another web chat user sees none of them and can touch none of them.
    expect(await useTool('subagents', { action: 'list' }, 'mallory')).toMatchObject({
      total: 0,
      active: [],
      recent: [],
      text: 'No sub-agents.',
    });
    const foreign = await useTools(
      [
        kill('all'),
        kill('last'),
        kill('1'),
        kill(byLabel['alpha-report'].childSessionKey),
        steer('alpha-summary'),
        kill(String(byLabel.dup.runId)),
      ],
      'mallory',
    );
    expect(foreign).toEqual([
      {
        status: 'ok',
        action: 'kill',
        target: 'all',
        killed: 0,
        labels: [],
        text: 'no running subagents to kill.',
      },
      { status: 'error', action: 'kill', target: 'last', error: 'Unknown target: last' },
      { status: 'error', action: 'kill', target: '1', error: 'Invalid index: 1' },
      {
        status: 'error',
        action: 'kill',
        target: byLabel['alpha-report'].childSessionKey,
        error: `Unknown session: ${byLabel['alpha-report'].childSessionKey}`,
      },
      {
        status: 'error',
        action: 'steer',
        target: 'alpha-summary',
        error: 'Unknown target: alpha-summary',
      },
      {
        status: 'error',
        action: 'kill',
        target: byLabel.dup.runId,
        error: `Unknown target: ${byLabel.dup.runId}`,
      },
    ]);
    const mallory = await gateway.request('GET', '/api/sessions/agent:main:webchat:direct:mallory/subagents');
    expect(mallory.body).toMatchObject({ total: 0, text: 'No sub-agents.' });
    // The four the owner did not kill still run.
    const after = await useTool('subagents', { action: 'list' });
    expect(after.active.map((entry: any) => entry.label)).toEqual([
      'dup',
      'Dup',
      'alpha-summary',
      'alpha-report',
    ]);
    expect(after.recent.map((entry: any) => [entry.label, entry.status])).toEqual([['gamma', 'killed']]);
  });
});

describe('the subagents tool: kill', () => {
  it('kills a child and its grandchild (maxSpawnDepth 2); only the killed child is announced, once', async () => {
    const { model, script, useTool, announcements, gateway } = await setup({
      config: { subagents: { maxSpawnDepth: 2 } },
    });
    script.child('manage the work', { toolCalls: [spawn('dig the hole', 'digger')] }, { hang: true });
    script.child('dig the hole', { hang: true });
    const manager = await useTool('sessions_spawn', spawn('manage the work', 'manager').arguments);
    const managerSecond = await childAsked(model, 'manage the work', 2);
    const grandchildRequest = await childAsked(model, 'dig the hole');
    const digger = toolResults(managerSecond).at(-1);
    expect(digger).toMatchObject({ status: 'accepted' });
    expect(digger.childSessionKey).toMatch(new RegExp(`^${manager.childSessionKey}:subagent:[0-9a-f-]{36}$`));
    // Depth 1 below maxSpawnDepth 2 may spawn; depth 2 may not.
    expect(toolNames(managerSecond)).toEqual(expect.arrayContaining(['sessions_spawn', 'subagents']));
    expect(toolNames(grandchildRequest)).not.toContain('sessions_spawn');
    expect(toolNames(grandchildRequest)).not.toContain('subagents');

    const killed = await useTool('subagents', { action: 'kill', target: 'manager' });
    expect(killed).toEqual({
      status: 'ok',
      action: 'kill',
      target: 'manager',
      runId: manager.runId,
      sessionKey: manager.childSessionKey,
      label: 'manager',
      killed: 2,
      labels: ['manager', 'digger'],
      cascadeKilled: 1,
      text: 'killed manager and 1 descendant.',
    });
    await managerSecond.disconnected;
    await grandchildRequest.disconnected;

    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    expect((await announcements())[0]).toMatchObject({
      status: 'killed',
      label: 'manager',
      runId: manager.runId,
    });
    const managerList = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent(manager.childSessionKey)}/subagents`,
    );
    expect(managerList.body.recent).toMatchObject([{ label: 'digger', status: 'killed' }]);
    // Another round trip later, still one announcement; the manager heard nothing of its digger.
    await useTool('subagents', { action: 'list' });
    expect(await announcements()).toHaveLength(1);
    expect(await announcements(manager.childSessionKey)).toHaveLength(0);
  });

  it("carries a grandchild's late result up through a new run of its ended parent sub-agent", async () => {
    const { script, useTool, announcements } = await setup({ config: { subagents: { maxSpawnDepth: 2 } } });
    const held = gate();
    script.child(
      'manage the work',
      { toolCalls: [spawn('dig the hole', 'digger')] },
      { text: 'digger is on it' },
    );
    script.child('dig the hole', async () => {
      await held.promise;
      return { text: 'hole dug' };
    });
    const manager = await useTool('sessions_spawn', spawn('manage the work', 'manager').arguments);
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    expect((await announcements())[0]).toMatchObject({ label: 'manager', result: 'digger is on it' });

    held.open();
    // The digger's end restarts the manager with it; the manager's answer is announced to the chat.
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(2);
    const second = (await announcements())[1];
    expect(second).toMatchObject({
      label: 'manager',
      status: 'success',
      childSessionKey: manager.childSessionKey,
    });
    expect(second.result).toBe('Heard: digger ended success: hole dug');
    expect(second.runId).not.toBe(manager.runId);
  });

  it('kill, kill all and /stop reach the running grandchildren of children that have ended', async () => {
    const { gateway, model, script, useTool, useTools, announcements } = await setup({
      config: { subagents: { maxSpawnDepth: 2 } },
    });
    for (const name of ['a', 'b', 'c']) {
      script.child(
        `manage ${name}`,
        { toolCalls: [spawn(`dig ${name}`, `digger-${name}`)] },
        { text: `${name} on it` },
      );
      script.child(`dig ${name}`, { hang: true });
    }
    const managersDone = async (count: number) =>
      expect.poll(async () => (await announcements()).length, { timeout: 10_000 }).toBe(count);
    await useTools([spawn('manage a', 'manager-a'), spawn('manage b', 'manager-b')]);
    const diggerA = await childAsked(model, 'dig a');
    const diggerB = await childAsked(model, 'dig b');
    await managersDone(2);

    // The manager has ended; killing it stops what it left running.
    expect(await useTool('subagents', { action: 'kill', target: 'manager-a' })).toMatchObject({
      status: 'ok',
      label: 'manager-a',
      killed: 1,
      labels: ['digger-a'],
      cascadeKilled: 1,
      text: 'manager-a is not running (done); killed 1 descendant.',
    });
    await diggerA.disconnected;
    expect(await useTool('subagents', { action: 'kill', target: 'all' })).toMatchObject({
      killed: 1,
      labels: ['digger-b'],
      text: 'killed 1 subagent.',
    });
    await diggerB.disconnected;

    await useTools([spawn('manage c', 'manager-c')]);
    const diggerC = await childAsked(model, 'dig c');
    await managersDone(3);
    expect((await gateway.send('/stop')).body.replies[0].text).toContain('Killed 1 sub-agent.');
    await diggerC.disconnected;
    // The diggers' ends are not announced (their requesters had ended): no manager ran again.
    await useTool('subagents', { action: 'list' });
    expect(await announcements()).toHaveLength(3);
    for (const name of ['a', 'b', 'c'])
      expect(childRequests(model.received, `manage ${name}`)).toHaveLength(2);
  });

  it('kill all stops every child; each is announced killed once', async () => {
    const { model, script, useTool, useTools, announcements } = await setup();
    const labels = ['one', 'two', 'three'];
    for (const label of labels) script.child(`job ${label}`, { hang: true });
    const spawned = await useTools(labels.map((label) => spawn(`job ${label}`, label)));
    const requests = await Promise.all(labels.map((label) => childAsked(model, `job ${label}`)));

    const result = await useTool('subagents', { action: 'kill', target: 'all' });
    expect(result).toMatchObject({
      status: 'ok',
      action: 'kill',
      target: 'all',
      killed: 3,
      text: 'killed 3 subagents.',
    });
    expect([...result.labels].sort()).toEqual(['one', 'three', 'two']);
    await Promise.all(requests.map((request) => request.disconnected));
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(3);
    await useTool('subagents', { action: 'list' });
    const announced = await announcements();
    expect(announced).toHaveLength(3);
    expect(announced.every((announcement) => announcement.status === 'killed')).toBe(true);
    expect(announced.map((announcement) => announcement.runId).sort()).toEqual(
      spawned.map((accepted) => accepted.runId).sort(),
    );
    expect(await useTool('subagents', { action: 'kill', target: '*' })).toMatchObject({
      killed: 0,
      text: 'no running subagents to kill.',
    });
    expect(await useTool('subagents', { action: 'kill', target: 'one' })).toMatchObject({
      status: 'ok',
      killed: 0,
      text: 'one is not running (killed).',
    });
  });
});

describe('the subagents tool: steer', () => {
  it('injects a message into a running child before its next model request', async () => {
    const { model, script, useTool, announcements, transcript } = await setup();
    const held = gate();
    script.child(
      'research the market',
      async () => {
        await held.promise;
        return { toolCalls: [{ name: 'session_status', arguments: {} }] };
      },
      { text: 'Pricing is the main point.' },
    );
    const accepted = await useTool('sessions_spawn', spawn('research the market', 'researcher').arguments);
    await childAsked(model, 'research the market');
    const steered = await useTool('subagents', {
      action: 'steer',
      target: 'researcher',
      message: 'Focus on pricing.',
    });
    expect(steered).toEqual({
      status: 'ok',
      action: 'steer',
      target: 'researcher',
      runId: accepted.runId,
      sessionKey: accepted.childSessionKey,
      label: 'researcher',
      mode: 'injected',
      text: 'Message sent to subagent.',
    });
    expect(childRequests(model.received, 'research the market')).toHaveLength(1);
    held.open();
    const second = await childAsked(model, 'research the market', 2);
    const messages = second.body.messages.map((message: any) => [message.role, message.content]);
    expect(messages.slice(-2)).toEqual([
      ['tool', expect.any(String)],
      ['user', 'Focus on pricing.'],
    ]);
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    // The child's transcript keeps the order its model read: the steer after the tool result.
    expect((await transcript(accepted.childSessionKey)).map((entry) => entry.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect((await announcements())[0]).toMatchObject({
      status: 'success',
      runId: accepted.runId,
      result: 'Pricing is the main point.',
      stats: { rounds: 2, toolCalls: 1 },
    });
  });

  it('a steer that arrives as the running child gives its final answer is answered, and that answer announced', async () => {
    const { model, script, useTool, announcements } = await setup();
    const held = gate();
    script.child(
      'write a haiku',
      async () => {
        await held.promise;
        return { text: 'A haiku about spring.' };
      },
      { text: 'A haiku about autumn.' },
    );
    const accepted = await useTool('sessions_spawn', spawn('write a haiku', 'poet').arguments);
    await childAsked(model, 'write a haiku');
    expect(
      await useTool('subagents', { action: 'steer', target: 'poet', message: 'Make it autumn.' }),
    ).toMatchObject({ status: 'ok', mode: 'injected', runId: accepted.runId });
    held.open();
    // The first model call answered without tools: the steer gets a model call of its own …
    const second = await childAsked(model, 'write a haiku', 2);
    expect(userTexts(second).at(-1)).toBe('Make it autumn.');
    // … and the parent hears the answer to its steer, once, not the answer the steer replaced.
    await expect
      .poll(async () => (await announcements()).map((announcement) => announcement.result), {
        timeout: 10_000,
      })
      .toContain('A haiku about autumn.');
    await useTool('subagents', { action: 'list' });
    expect(await announcements()).toHaveLength(1);
  });

  it('restarts an ended child with the message and announces its new result', async () => {
    const { model, script, useTool, announcements } = await setup();
    script.child('summarize the report', { text: 'Short summary.' }, { text: 'Résumé court.' });
    const accepted = await useTool('sessions_spawn', spawn('summarize the report', 'summarizer').arguments);
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);

    const steered = await useTool('subagents', {
      action: 'steer',
      target: 'summarizer',
      message: 'Now in French.',
    });
    expect(steered).toMatchObject({
      status: 'ok',
      mode: 'restarted',
      label: 'summarizer',
      sessionKey: accepted.childSessionKey,
      text: 'Subagent restarted with the message.',
    });
    expect(steered.runId).not.toBe(accepted.runId);
    const second = await childAsked(model, 'summarize the report', 2);
    expect(userTexts(second)).toEqual(['summarize the report', 'Now in French.']);
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(2);
    const [first, again] = await announcements();
    expect(first).toMatchObject({ runId: accepted.runId, result: 'Short summary.' });
    expect(again).toMatchObject({
      status: 'success',
      runId: steered.runId,
      childSessionKey: accepted.childSessionKey,
      label: 'summarizer',
      result: 'Résumé court.',
    });
    // One entry per child: its latest run.
    const list = await useTool('subagents', { action: 'list' });
    expect(list.recent).toMatchObject([{ runId: steered.runId, label: 'summarizer', status: 'done' }]);
    expect(list.total).toBe(1);
  });

  it('refuses a second steer within 2 seconds and a message over 4000 characters', async () => {
    const { model, script, useTools } = await setup();
    script.child('long job', { hang: true });
    await useTools([spawn('long job', 'worker')]);
    await childAsked(model, 'long job');
    const steer = (message: string) => ({
      name: 'subagents',
      arguments: { action: 'steer', target: 'worker', message },
    });
    const results = await useTools([steer('y'.repeat(4001)), steer('first'), steer('second')]);
    expect(results).toEqual([
      {
        status: 'error',
        action: 'steer',
        target: 'worker',
        error: 'Message too long (4001 chars, max 4000).',
      },
      expect.objectContaining({ status: 'ok', mode: 'injected' }),
      {
        status: 'error',
        action: 'steer',
        target: 'worker',
        error: 'Steered too recently: wait 2 seconds between messages to one sub-agent.',
      },
    ]);
  });

  it('a sub-agent cannot steer itself: it does not see itself, and the service refuses it', async () => {
    const selfSteer: Tool = {
      name: 'steer_self',
      description: 'Test tool: asks the sub-agent service to steer the calling session.',
      parameters: Type.Object({}),
      // The port tools get is the gateway's `SubagentManager`: this tool asks it directly.
      execute: (_input, context) =>
        (context.services.subagents as SubagentManager).steer(
          { sessionKey: context.sessionKey, agentId: context.agentId },
          {
            subagentRunId: context.runId ?? '',
            childSessionKey: context.sessionKey,
            requesterSessionKey: PARENT,
            label: 'me',
            task: 'me',
            agentId: context.agentId,
            model: 'fake',
            depth: 1,
            status: 'running',
            startedAt: Date.now(),
          },
          'talk to myself',
        ),
    };
    const { model, script, useTool } = await setup({
      config: { subagents: { maxSpawnDepth: 2 } },
      tools: [selfSteer],
    });
    script.child(
      'look inward',
      (request) => ({
        toolCalls: [
          {
            name: 'subagents',
            arguments: { action: 'steer', target: sessionOf(request), message: 'hello me' },
          },
          { name: 'steer_self', arguments: {} },
        ],
      }),
      { text: 'could not' },
    );
    const accepted = await useTool('sessions_spawn', spawn('look inward', 'mirror').arguments);
    const second = await childAsked(model, 'look inward', 2);
    expect(toolResults(second).slice(-2)).toEqual([
      {
        status: 'error',
        action: 'steer',
        target: accepted.childSessionKey,
        error: `Unknown session: ${accepted.childSessionKey}`,
      },
      { ok: false, error: 'A sub-agent cannot steer itself.' },
    ]);
  });
});
