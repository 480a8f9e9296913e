import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { Tool } from '../../src/engine/tools/index.js';
import { createSessionStore, type NewTranscriptEntry } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Context that fits, end to end: a long session seeded in the real SQLite store (500 entries, a
 * 200 KB tool result among them), a real gateway and a fake OpenAI server that records every
 * request. What the fake received is measured against the model's context.
 */

const cleanups = cleanupAfterEach();
const SESSION = 'agent:main:webchat:direct:local';
const CONTEXT_TOKENS = 32_000;
const BIG = 200_000;

const bigTool: Tool = {
  name: 'logs.read',
  description: 'Reads a long log.',
  parameters: Type.Object({}),
  readOnly: true,
  execute: () => 'L'.repeat(BIG),
};

/** A request's size as the fake received it, at the estimate's 4 characters a token. */
const requestTokens = (body: unknown) => JSON.stringify(body).length / 4;
const userTexts = (body: any): string[] =>
  body.messages
    .filter((message: any) => message.role === 'user')
    .map((message: any) => String(message.content));

/** 125 exchanges of 4 entries (question, tool call, result, answer); exchange 120's result is 200 KB. */
async function seed(dir: string): Promise<void> {
  const stateDir = path.join(dir, 'data');
  await mkdir(stateDir, { recursive: true });
  const logger = createLogger({ level: 'silent' }).logger;
  const store = await createStore({ url: undefined, stateDir, logger });
  const sessions = createSessionStore({ store });
  await sessions.ensure(SESSION, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
  });
  const append = (entry: NewTranscriptEntry) => sessions.append(SESSION, entry);
  for (let index = 0; index < 125; index += 1) {
    await append({ role: 'user', text: `question ${index}`, senderId: 'webchat:local' });
    const id = `seed-${index}`;
    await append({ role: 'assistant', text: '', toolCalls: [{ id, name: 'logs.read', arguments: '{}' }] });
    const text = index === 120 ? 'S'.repeat(BIG) : `result ${index} `.repeat(200);
    await append({ role: 'tool', text, toolCallId: id, toolName: 'logs.read' });
    await append({ role: 'assistant', text: `answer ${index}` });
  }
  await store.close();
}

async function setup(
  config: Record<string, unknown> = {},
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const dir = await makeTempDir('switchboard-context-');
  await seed(dir);
  const gateway = await startTestGateway({
    dir,
    config: {
      models: {
        fake: {
          provider: 'openai',
          model: 'fake-1',
          baseUrl: model.url,
          apiKey: 'sk-x',
          contextTokens: CONTEXT_TOKENS,
        },
      },
      agents: { main: { model: 'fake' } },
      ...config,
    },
    tools: [bigTool],
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

async function transcript(gateway: TestGateway): Promise<any[]> {
  const response = await gateway.request(
    'GET',
    `/api/sessions/${encodeURIComponent(SESSION)}/transcript?last=1000`,
  );
  expect(response.status).toBe(200);
  return response.body.entries;
}

describe('a session of 500 entries with a 200 KB tool result', () => {
  it('is compacted, every model request stays under the budget, and the next turn sees the last user message', async () => {
    const { gateway, model } = await setup();
    model.push(
      { text: 'SUMMARY: 120 questions about the logs were answered.' },
      { toolCalls: [{ name: 'logs.read', arguments: {} }] },
      { text: 'The log is long.' },
    );
    const first = await gateway.send('what does the log say now?');
    expect(first.status).toBe(200);
    await model.waitForRequests(3);

    const [summarizing, turn, afterTool] = model.requests;
    expect(summarizing.tools).toBeUndefined();
    // The turn reads the last 200 entries (`agentLoop.historyEntries`): from seq 301 on.
    expect(JSON.stringify(summarizing.messages)).toContain('question 76');
    for (const body of model.requests) expect(requestTokens(body)).toBeLessThan(CONTEXT_TOKENS);
    expect(userTexts(turn)[0]).toContain('SUMMARY: 120 questions');
    expect(userTexts(turn).at(-1)).toBe('what does the log say now?');
    expect(userTexts(turn)).not.toContain('question 76');
    // The fresh 200 KB result is cut in the next call, with its marker; the transcript keeps it whole.
    const cut = afterTool.messages.at(-1);
    expect(cut.role).toBe('tool');
    expect(cut.content).toContain(`characters shown; the whole result is in the transcript]`);
    expect(cut.content.length).toBeLessThan(BIG / 2);

    const entries = await transcript(gateway);
    const compaction = entries.find((entry) => entry.compaction);
    expect(compaction).toMatchObject({
      role: 'system',
      text: 'SUMMARY: 120 questions about the logs were answered.',
    });
    expect(compaction.compaction.fromSeq).toBe(301);
    expect(compaction.compaction.toSeq).toBeLessThan(500);
    // The transcript keeps what the model saw cut: the seeded result whole, the fresh one as the
    // tool registry recorded it (it caps any result at 100,000 characters).
    const result = (id: string) => entries.find((entry) => entry.toolCallId === id && entry.role === 'tool');
    expect(result('seed-120').text).toHaveLength(BIG);
    expect(result('call_0').text.length).toBeGreaterThan(cut.content.length * 2);

    model.push({ text: 'Still long.' });
    await gateway.send('and the line count?');
    await model.waitForRequests(4);
    const next = model.requests[3];
    expect(requestTokens(next)).toBeLessThan(CONTEXT_TOKENS);
    expect(userTexts(next)[0]).toContain('SUMMARY: 120 questions');
    expect(userTexts(next)).toContain('what does the log say now?');
    expect(userTexts(next).at(-1)).toBe('and the line count?');
    expect(model.requests).toHaveLength(4);
  });

  it('without compaction, is cut to the budget: whole exchanges from the oldest, the last message kept', async () => {
    const { gateway, model } = await setup({ context: { compaction: false } });
    model.push({ text: 'Cut.' });
    await gateway.send('the newest question');
    await model.waitForRequests(1);
    const [body] = model.requests;
    expect(requestTokens(body)).toBeLessThan(CONTEXT_TOKENS);
    expect(body.messages.length).toBeLessThan(150);
    expect(body.messages[1].role).toBe('user');
    expect(body.messages[1].content).toMatch(/^question \d+$/);
    expect(userTexts(body).at(-1)).toBe('the newest question');
    const calls = new Set(
      body.messages.flatMap((message: any) => (message.tool_calls ?? []).map((made: any) => made.id)),
    );
    for (const message of body.messages.filter((message: any) => message.role === 'tool'))
      expect(calls).toContain(message.tool_call_id);
    expect((await transcript(gateway)).some((entry) => entry.compaction)).toBe(false);
  });

  it('goes on with the history cut to fit when the summarizing call fails, and logs it', async () => {
    const { gateway, model } = await setup();
    model.push({ status: 400, errorMessage: 'the summary was refused' }, { text: 'Answered anyway.' });
    const answer = await gateway.send('still there?');
    expect(answer.body.replies.map((reply: any) => reply.text)).toEqual(['Answered anyway.']);
    expect(model.requests).toHaveLength(2);
    expect(requestTokens(model.requests[1])).toBeLessThan(CONTEXT_TOKENS);
    expect(userTexts(model.requests[1]).at(-1)).toBe('still there?');
    expect((await transcript(gateway)).some((entry) => entry.compaction)).toBe(false);
    expect(gateway.logLines.some((line) => line.includes('compaction failed'))).toBe(true);
    // The session's next turn does not ask for a summary again at once (the model may be down).
    model.push({ text: 'Again.' });
    await gateway.send('one more');
    expect(model.requests).toHaveLength(3);
    expect(userTexts(model.requests[2]).at(-1)).toBe('one more');
  });

  it('/compact summarizes on demand and says what it did', async () => {
    const { gateway, model } = await setup();
    model.push({ text: 'SUMMARY on demand.' });
    const answer = await gateway.send('/compact');
    expect(answer.body.replies[0].text).toMatch(
      /^Compacted \d+ entries into a summary: about [\d,]+ tokens of history before, [\d,]+ after\.$/,
    );
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0].tools).toBeUndefined();
    const entries = await transcript(gateway);
    expect(entries.at(-1)).toMatchObject({ role: 'system', text: 'SUMMARY on demand.' });
    expect(entries.at(-1).compaction.toSeq).toBeLessThan(500);

    // What is left after the summary is short: once more has nothing to do, and asks no model.
    const again = await gateway.send('/compact');
    expect(again.body.replies[0].text).toBe(
      'Nothing to compact: the history before the last message is short already.',
    );
    expect(model.requests).toHaveLength(1);
  });
});
