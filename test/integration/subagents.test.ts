import { describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fakes/fake-model-server.js';
import { childRequests, gate, toolNames, toolResults, userTexts } from '../fakes/subagent-script.js';
import { openEvents } from '../helpers/webchat-events.js';
import { childAsked, PARENT, setup, spawn } from './subagents-harness.js';

/**
 * Sub-agents end to end: web chat → the parent's tool loop → sessions_spawn / subagents → child
 * sessions that call the same fake model → announcements back into the parent session.
 */

describe('spawn and announce', () => {
  it('runs the child on its task and announces its result into the parent chat, which answers it', async () => {
    const { gateway, model, script, useTool, announcements, transcript } = await setup();
    const events = await openEvents(gateway, 'local');
    script.child('count the files', { text: 'There are 42 files.' });
    const accepted = await useTool('sessions_spawn', spawn('count the files in /srv', 'counter').arguments);
    expect(accepted).toEqual({
      status: 'accepted',
      runId: expect.any(String),
      childSessionKey: expect.stringMatching(/^agent:main:subagent:[0-9a-f-]{36}$/),
    });

    const childRequest = await childAsked(model, 'count the files');
    expect(userTexts(childRequest)).toEqual(['count the files in /srv']);
    expect(String(childRequest.body.messages[0].content)).toContain(`(session ${accepted.childSessionKey})`);

    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    const [announcement] = await announcements();
    expect(announcement).toEqual({
      status: 'success',
      label: 'counter',
      result: 'There are 42 files.',
      stats: { runtimeMs: expect.any(Number), rounds: 1, toolCalls: 0 },
      runId: accepted.runId,
      childSessionKey: accepted.childSessionKey,
    });
    // The announcement started a turn in the parent; its reply reached the parent's web chat.
    const heard = 'Heard: counter ended success: There are 42 files.';
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain(heard);
    const entries = await transcript(PARENT);
    expect(entries.at(-1)).toMatchObject({ role: 'assistant', text: heard });
    // The child's transcript holds its task and its answer.
    const child = await transcript(accepted.childSessionKey);
    expect(child.map((entry) => [entry.role, entry.text])).toEqual([
      ['user', 'count the files in /srv'],
      ['assistant', 'There are 42 files.'],
    ]);
  });
  it('does not announce a child whose final reply is NO_REPLY', async () => {
    const { model, script, useTool, useTools, announcements } = await setup();
    script.child('stay quiet', { text: 'NO_REPLY' });
    const quiet = await useTool('sessions_spawn', spawn('stay quiet please', 'quiet').arguments);
    await childAsked(model, 'stay quiet');
    const statusOf = async (label: string) => {
      const list = await useTool('subagents', { action: 'list' });
      return [...list.active, ...list.recent].find((entry: any) => entry.label === label)?.status;
    };
    await expect.poll(() => statusOf('quiet'), { timeout: 10_000 }).toBe('done');
    // A second child ends after it: its announcement is the only one.
    const [loud] = await useTools([spawn('speak up', 'loud')]);
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    expect((await announcements()).map((announcement) => announcement.runId)).toEqual([loud.runId]);
    expect((await announcements())[0]).toMatchObject({ label: 'loud', result: 'done: speak up' });
    expect(quiet.runId).not.toBe(loud.runId);
  });

  it('announces a child whose model call fails as error, with the reason', async () => {
    const { model, script, useTool, announcements } = await setup();
    script.child('fail hard', { status: 400, errorMessage: 'bad request from the fake' });
    await useTool('sessions_spawn', spawn('fail hard', 'failing').arguments);
    await childAsked(model, 'fail hard');
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    const [announcement] = await announcements();
    expect(announcement).toMatchObject({ status: 'error', label: 'failing' });
    expect(announcement.error).toContain('bad request from the fake');
  });

  it('announces a child that runs past runTimeoutSeconds as timeout', async () => {
    const { model, script, useTool, announcements } = await setup();
    script.child('take forever', { hang: true });
    const accepted = await useTool(
      'sessions_spawn',
      spawn('take forever', 'slowpoke', { runTimeoutSeconds: 1 }).arguments,
    );
    const request = await childAsked(model, 'take forever');
    await request.disconnected;
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    expect((await announcements())[0]).toMatchObject({
      status: 'timeout',
      label: 'slowpoke',
      runId: accepted.runId,
      error: 'timed out after 1 s',
    });
  });
});

describe('tool policy of sub-agents', () => {
  it('a child at depth 1 with the default maxSpawnDepth gets neither spawning tools nor owner tools', async () => {
    const { model, script, useTool } = await setup();
    const accepted = await useTool('sessions_spawn', spawn('look around', 'looker').arguments);
    const child = await childAsked(model, 'look around');
    const parent = model.received[0] as FakeRequest;
    // The owner's chat turn has all of them …
    expect(toolNames(parent)).toEqual(expect.arrayContaining(['sessions_spawn', 'subagents', 'gateway']));
    // … its child none: not the spawning tools (depth 1 = maxSpawnDepth) and never owner-only ones.
    expect(toolNames(child)).toEqual(expect.arrayContaining(['session_status']));
    expect(toolNames(child)).not.toContain('sessions_spawn');
    expect(toolNames(child)).not.toContain('subagents');
    expect(toolNames(child)).not.toContain('gateway');
    const system = String(child.body.messages[0].content);
    expect(system).toContain(`This turn was started by session:${PARENT}.`);
    expect(system).not.toContain('an owner of this gateway');
    expect(accepted.status).toBe('accepted');
    // A forced call of a spawning tool by the child is refused, not run.
    script.child('try to spawn', { toolCalls: [spawn('nested task', 'nested')] }, { text: 'gave up' });
    await useTool('sessions_spawn', spawn('try to spawn a nested one', 'tryer').arguments);
    const second = await childAsked(model, 'try to spawn', 2);
    expect(toolResults(second).at(-1)).toMatch(/^Unknown tool "sessions_spawn"\. Tools you can call: /);
    expect(childRequests(model.received, 'nested task')).toHaveLength(0);
  });
});

describe('limits', () => {
  it('refuses the 6th active child, naming the limit; a slot frees when one ends', async () => {
    const { model, script, useTool, useTools } = await setup();
    for (let index = 1; index <= 6; index += 1) script.child(`batch ${index}`, { hang: true });
    const results = await useTools(
      [1, 2, 3, 4, 5, 6].map((index) => spawn(`batch ${index}`, `batch-${index}`)),
    );
    expect(results.slice(0, 5).map((result) => result.status)).toEqual(Array(5).fill('accepted'));
    expect(results[5]).toEqual({
      ok: false,
      reason:
        'subagents.maxChildrenPerSession is 5: this session already has 5 active sub-agents; wait for one to end or kill one.',
    });
    for (let index = 1; index <= 5; index += 1) await childAsked(model, `batch ${index}`);
    expect(childRequests(model.received, 'batch 6')).toHaveLength(0);
    await useTool('subagents', { action: 'kill', target: 'batch-1' });
    expect(await useTool('sessions_spawn', spawn('batch 6 again', 'batch-6').arguments)).toMatchObject({
      status: 'accepted',
    });
  });

  it('with maxConcurrent 2 the 3rd child waits (queued) and runs when a slot frees', async () => {
    const { model, script, useTool, useTools, announcements } = await setup({
      config: { subagents: { maxConcurrent: 2 } },
    });
    const gates = [gate(), gate(), gate()];
    gates.forEach((held, index) => {
      script.child(`slot job ${index + 1}`, async () => {
        await held.promise;
        return { text: `finished ${index + 1}` };
      });
    });
    await useTools([1, 2, 3].map((index) => spawn(`slot job ${index}`, `slot-${index}`)));
    await childAsked(model, 'slot job 1');
    await childAsked(model, 'slot job 2');
    const list = await useTool('subagents', { action: 'list' });
    expect(list.active.map((entry: any) => [entry.label, entry.status])).toEqual([
      ['slot-3', 'queued'],
      ['slot-2', 'running'],
      ['slot-1', 'running'],
    ]);
    expect(list.text).toMatch(/^Active:\n\[1\] slot-3 \(queued, \d+s\)\n/);
    expect(childRequests(model.received, 'slot job 3')).toHaveLength(0);

    gates[0]?.open();
    await childAsked(model, 'slot job 3');
    expect((await useTool('subagents', { action: 'list' })).active.map((entry: any) => entry.status)).toEqual(
      ['running', 'running'],
    );
    gates[1]?.open();
    gates[2]?.open();
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(3);
    expect((await announcements()).map((announcement) => announcement.result).sort()).toEqual([
      'finished 1',
      'finished 2',
      'finished 3',
    ]);
  });
  it('a waiting child gets a steer with its task; a waiting child killed never runs and is announced once', async () => {
    const { model, script, useTools, announcements, transcript } = await setup({
      config: { subagents: { maxConcurrent: 1 } },
    });
    const held = gate();
    script.child('first in line', async () => {
      await held.promise;
      return { text: 'first done' };
    });
    const [, second, third] = await useTools([
      spawn('first in line', 'first'),
      spawn('second in line', 'second'),
      spawn('third in line', 'third'),
    ]);
    await childAsked(model, 'first in line');
    const results = await useTools([
      {
        name: 'subagents',
        arguments: { action: 'steer', target: 'second', message: 'Also count the lines.' },
      },
      { name: 'subagents', arguments: { action: 'kill', target: 'third' } },
    ]);
    expect(results[0]).toMatchObject({ status: 'ok', mode: 'injected', runId: second.runId });
    expect(results[1]).toMatchObject({ status: 'ok', killed: 1, text: 'killed third.' });
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(1);
    expect((await announcements())[0]).toMatchObject({
      status: 'killed',
      label: 'third',
      runId: third.runId,
    });

    held.open();
    const request = await childAsked(model, 'second in line');
    expect(userTexts(request)).toEqual(['second in line\n\nAlso count the lines.']);
    expect((await transcript(second.childSessionKey))[0]).toMatchObject({
      role: 'user',
      text: 'second in line\n\nAlso count the lines.',
      senderId: `session:${PARENT}`,
    });
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(3);
    expect((await announcements()).map((announcement) => [announcement.label, announcement.status])).toEqual([
      ['third', 'killed'],
      ['first', 'success'],
      ['second', 'success'],
    ]);
    expect(childRequests(model.received, 'third in line')).toHaveLength(0);
  });

  it('refuses an agent outside allowAgents and an unknown model, naming them', async () => {
    const { useTools } = await setup({
      config: { agents: { main: { model: 'fake' }, helper: { model: 'fake' } } },
    });
    const results = await useTools([
      spawn('help me', 'helper', { agentId: 'helper' }),
      spawn('help me', 'nobody', { agentId: 'nobody' }),
      spawn('help me', 'other-model', { model: 'gpt-nope' }),
    ]);
    expect(results).toEqual([
      {
        ok: false,
        reason:
          'Agent "helper" is not allowed: subagents.allowAgents is [] (a session may always spawn its own agent, "main").',
      },
      {
        ok: false,
        reason:
          'Agent "nobody" is not allowed: subagents.allowAgents is [] (a session may always spawn its own agent, "main").',
      },
      { ok: false, reason: 'Unknown model "gpt-nope" (have: fake).' },
    ]);
  });
});

describe('chat commands and the web chat API', () => {
  it('/subagents list matches GET /api/sessions/:key/subagents and the tool; /stop kills the children', async () => {
    const { gateway, model, script, useTool, useTools, announcements } = await setup();
    script.child('watch the logs', { hang: true });
    script.child('watch the metrics', { hang: true });
    await useTools([spawn('watch the logs', 'logs'), spawn('watch the metrics', 'metrics')]);
    const requests = [
      await childAsked(model, 'watch the logs'),
      await childAsked(model, 'watch the metrics'),
    ];

    const command = await gateway.send('/subagents list');
    expect(command.body.replies[0].text).toMatch(
      /^Active:\n\[1\] metrics \(running, \d+s\)\n\[2\] logs \(running, \d+s\)$/,
    );
    const api = await gateway.request('GET', `/api/sessions/${encodeURIComponent(PARENT)}/subagents`);
    expect(api.status).toBe(200);
    const tool = await useTool('subagents', { action: 'list' });
    const comparable = (list: any) => ({
      total: list.total,
      entries: [...list.active, ...list.recent].map(({ runtimeMs: _runtime, ...entry }: any) => entry),
    });
    expect(comparable(api.body)).toEqual(comparable(tool));
    expect(api.body).toMatchObject({ status: 'ok', action: 'list', total: 2 });
    // The same lines; runtimes may have moved on by a second in between.
    const withoutRuntimes = (text: string) => text.replace(/, \d+s\)/g, ')');
    expect(withoutRuntimes(api.body.text)).toBe(withoutRuntimes(command.body.replies[0].text));
    const unknown = await gateway.request('GET', '/api/sessions/agent%3Amain%3Anobody/subagents');
    expect(unknown.status).toBe(404);
    const windowed = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent(PARENT)}/subagents?recentMinutes=5`,
    );
    expect(windowed.body).toMatchObject({ status: 'ok', total: 2 });
    const badWindow = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent(PARENT)}/subagents?recentMinutes=x`,
    );
    expect(badWindow.status).toBe(400);

    expect((await gateway.send('/subagents kill nothing-like-this')).body.replies[0].text).toBe(
      'Unknown target: nothing-like-this',
    );
    const stop = await gateway.send('/stop');
    expect(stop.body.replies[0].text).toBe('No turn is running in this session. Killed 2 sub-agents.');
    await Promise.all(requests.map((request) => request.disconnected));
    await expect.poll(announcements, { timeout: 10_000 }).toHaveLength(2);
    expect((await announcements()).map((announcement) => announcement.status)).toEqual(['killed', 'killed']);
    const after = await gateway.send('/subagents');
    expect(after.body.replies[0].text).toMatch(
      /^Recent:\n\[1\] \w+ \(killed, \d+s\)\n\[2\] \w+ \(killed, \d+s\)$/,
    );
  });

  it('/subagents steer and kill act on the session’s children', async () => {
    const { gateway, model, script, useTools, transcript } = await setup();
    script.child('follow the queue', { hang: true });
    const [accepted] = await useTools([spawn('follow the queue', 'follower')]);
    const request = await childAsked(model, 'follow the queue');
    const steer = await gateway.send('/subagents steer follower please hurry up');
    expect(steer.body.replies[0].text).toBe('Message sent to subagent.');
    expect((await gateway.send('/subagents kill follower')).body.replies[0].text).toBe('killed follower.');
    await request.disconnected;
    // The steer the killed run never took is still recorded in the child's transcript.
    await expect
      .poll(async () => (await transcript(accepted.childSessionKey)).at(-1))
      .toMatchObject({
        role: 'user',
        text: 'please hurry up',
        senderId: `session:${PARENT}`,
      });
    expect((await gateway.send('/subagents kill follower', 'mallory')).body.replies[0].text).toBe(
      'Unknown target: follower',
    );
  });
});
