import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';
import { openEvents, type StreamEvent as StreamEventOf } from '../helpers/webchat-events.js';

type StreamEvent = StreamEventOf<any>;

const openSessionEvents = (gateway: TestGateway) => openEvents<any>(gateway, undefined, '/api/events');

/** Waits up to 15 s for `check`; fails naming `what`. */
const until = (check: () => boolean, what: string) =>
  pollUntil(what, () => check() || undefined, { timeoutMs: 15_000, intervalMs: 25 });

const statusesOf = (events: StreamEvent[], key: string) =>
  events
    .filter((event) => event.type === 'session' && event.data.summary.key === key)
    .map((event) => event.data.summary.status as string);

describe('GET /api/events: the session events stream', () => {
  const gated = createGatedRunner();
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      createRunner: () => gated.runner,
      config: { agents: { main: {}, ops: {} }, session: { maxConcurrentTurns: 1 } },
    });
  });
  afterAll(async () => {
    await gateway.dispose();
  });

  it('streams entries and status changes: running, queued behind the limit, idle', async () => {
    const stream = await openSessionEvents(gateway);
    await until(() => stream.events.some((event) => event.type === 'ready'), 'ready');
    const first = gateway.send('first message', 'ann');
    await gated.waitForOpen(1);
    const annKey = 'agent:main:webchat:direct:ann';
    await until(() => statusesOf(stream.events, annKey).includes('running'), 'ann running');
    const entry = stream.events.find((event) => event.type === 'entry' && event.data.key === annKey);
    expect(entry?.data.entry).toMatchObject({ seq: 0, role: 'user', text: 'first message' });

    // One turn at a time: ben's waits for the global limit.
    const second = gateway.send('second message', 'ben');
    const benKey = 'agent:main:webchat:direct:ben';
    await until(() => statusesOf(stream.events, benKey).includes('queued'), 'ben queued');
    gated.releaseNext();
    await first;
    await gated.waitForOpen(1);
    await until(() => statusesOf(stream.events, benKey).includes('running'), 'ben running');
    gated.releaseNext();
    await second;
    await until(() => statusesOf(stream.events, annKey).at(-1) === 'idle', 'ann idle');
    await until(() => statusesOf(stream.events, benKey).at(-1) === 'idle', 'ben idle');
    const annEntries = stream.events
      .filter((event) => event.type === 'entry' && event.data.key === annKey)
      .map((event) => [event.data.entry.role, event.data.entry.text]);
    expect(annEntries).toEqual([
      ['user', 'first message'],
      ['assistant', 'answered: first message'],
    ]);
    const last = stream.events.filter((event) => event.type === 'session').at(-1)?.data.summary;
    expect(last).toMatchObject({ agentId: 'main', channel: 'webchat', transcriptLength: 2 });
    // The transcript page opens with the same summary (status and counts).
    const transcript = await gateway.request('GET', `/api/sessions/${annKey}/transcript?last=1`);
    expect(transcript.body.summary).toMatchObject({ key: annKey, status: 'idle', transcriptLength: 2 });
    expect(transcript.body.entries).toHaveLength(1);
    expect(transcript.body.next).toBe(1);
  });

  it('filters the list by agent, channel, status and text', async () => {
    const all = await gateway.request('GET', '/api/sessions');
    expect(all.status).toBe(200);
    const keys = (answer: { body: { sessions: { key: string }[] } }) =>
      answer.body.sessions.map((session) => session.key).sort();
    expect(keys(await gateway.request('GET', '/api/sessions?q=BEN'))).toEqual([
      'agent:main:webchat:direct:ben',
    ]);
    expect(keys(await gateway.request('GET', '/api/sessions?agent=ops'))).toEqual([]);
    expect(keys(await gateway.request('GET', '/api/sessions?agent=main&channel=webchat'))).toEqual(keys(all));
    expect(keys(await gateway.request('GET', '/api/sessions?channel=slack'))).toEqual([]);
    expect(keys(await gateway.request('GET', '/api/sessions?status=idle'))).toEqual(keys(all));
    expect(keys(await gateway.request('GET', '/api/sessions?status=running'))).toEqual([]);
    const paged = await gateway.request('GET', '/api/sessions?status=idle&limit=1');
    expect(paged.body.sessions).toHaveLength(1);
    const rest = await gateway.request(
      'GET',
      `/api/sessions?status=idle&limit=10&cursor=${encodeURIComponent(paged.body.next)}`,
    );
    expect([...keys(paged), ...keys(rest)].sort()).toEqual(keys(all));
  });

  it('refuses bad filters and bad event queries, naming the field', async () => {
    const status = await gateway.request('GET', '/api/sessions?status=sleeping');
    expect(status.status).toBe(400);
    expect(status.body.message).toContain('status');
    const channel = await gateway.request('GET', '/api/sessions?channel=irc');
    expect(channel.status).toBe(400);
    expect(channel.body.message).toContain('channel');
    const q = await gateway.request('GET', `/api/sessions?q=${'x'.repeat(300)}`);
    expect(q.status).toBe(400);
    expect(q.body.message).toContain('q');
    const events = await gateway.request('GET', '/api/events?user=bob');
    expect(events.status).toBe(400);
    expect(events.body.message).toContain('user');
  });

  it('ends open streams when the gateway stops, and restarts with a fresh bus', async () => {
    const stream = await openSessionEvents(gateway);
    await gateway.restart();
    expect(await stream.ended).toBe('closed');
    const again = await openSessionEvents(gateway);
    await gateway.send('/whoami', 'dora');
    const sent = gateway.send('after the restart', 'dora');
    await gated.waitForOpen(1);
    gated.releaseNext();
    await sent;
    await until(
      () =>
        again.events.some((event) => event.type === 'entry' && event.data.entry.text === 'after the restart'),
      'the entry after the restart',
    );
  });
});

describe('GET /api/events for a non-owner', () => {
  const ALICE = 'events-alice-token-0123456789';
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        http: { port: 0, token: TEST_TOKEN, users: { alice: { token: ALICE } } },
        owners: ['webchat:someone-else'],
      },
    });
  });
  afterAll(async () => {
    await gateway.dispose();
  });

  it('is refused to a named user who is not an owner with 403 naming them', async () => {
    const answer = await fetch(`${gateway.url}/api/events`, {
      headers: { authorization: `Bearer ${ALICE}`, connection: 'close' },
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { message: string }).message).toContain(
      'webchat:alice, role member may not call',
    );
  });
});

describe('secrets in transcripts and the event stream', () => {
  // Routing scrubs what it records; these entries are not its: one written before the value
  // became a config secret, and an owner's post from the control UI. Both answers scrub them.
  const SECRET = 'sk-live-transcript-secret-0123456789';
  let gateway: TestGateway;
  let model: FakeModelServer;
  const modelConfig = (apiKey: string) => ({
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey } },
    agents: { main: { model: 'fake' } },
  });
  beforeAll(async () => {
    model = await startFakeOpenAIServer();
    const before = await startTestGateway({ config: modelConfig('sk-an-older-key-0123456789') });
    model.push(
      { toolCalls: [{ name: 'session_status', arguments: { sessionKey: SECRET } }] },
      { text: `the key is ${SECRET}` },
    );
    expect((await before.send(`remember ${SECRET}`, 'sam')).status).toBe(200);
    model.push({ text: 'noted' });
    expect((await before.send(`keep ${SECRET} for me`)).status).toBe(200);
    await before.stop();
    gateway = await startTestGateway({ dir: path.dirname(before.configPath), config: modelConfig(SECRET) });
  });
  afterAll(async () => {
    await gateway?.dispose();
    await model?.close();
  });

  it('never shows a config secret in an entry’s text or tool call arguments, in either answer', async () => {
    const key = 'agent:main:webchat:direct:sam';
    const read = () => gateway.request('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
    const transcript = await read();
    expect(transcript.status).toBe(200);
    const entries = transcript.body.entries;
    expect(entries.map((entry: any) => entry.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(entries[0].text).toBe('remember [REDACTED]');
    expect(JSON.parse(entries[1].toolCalls[0].arguments)).toEqual({ sessionKey: '[REDACTED]' });
    expect(entries.at(-1).text).toBe('the key is [REDACTED]');
    expect(JSON.stringify(transcript.body)).not.toContain(SECRET);

    const stream = await openSessionEvents(gateway);
    await until(() => stream.events.some((event) => event.type === 'ready'), 'ready');
    const posted = await gateway.request('POST', `/api/sessions/${encodeURIComponent(key)}/messages`, {
      text: `use ${SECRET}`,
    });
    expect(posted).toMatchObject({ status: 200, body: { posted: true } });
    await until(() => stream.events.some((event) => event.type === 'entry'), 'the posted entry');
    const streamed = stream.events.find((event) => event.type === 'entry')?.data.entry;
    expect(streamed).toMatchObject({ role: 'system', text: 'webchat:local (control UI): use [REDACTED]' });
    expect(JSON.stringify(stream.events)).not.toContain(SECRET);
    expect(JSON.stringify((await read()).body)).not.toContain(SECRET);
  });

  it('never shows it in the web chat history either', async () => {
    const history = await gateway.request('GET', '/api/webchat/history');
    expect(history.status).toBe(200);
    expect(history.body.messages.map((message: any) => message.text)).toEqual([
      'keep [REDACTED] for me',
      'noted',
    ]);
    expect(JSON.stringify(history.body)).not.toContain(SECRET);
  });
});
