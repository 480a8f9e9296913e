import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { compactSession } from '../../src/engine/agents/context/compaction.js';
import {
  type ContextBudget,
  contextBudget,
  messagesTokens,
  truncateResult,
} from '../../src/engine/agents/context/context-budget.js';
import { fitMessages } from '../../src/engine/agents/context/context-fit.js';
import {
  contextMessages,
  readSessionContext,
  sessionContext,
} from '../../src/engine/agents/context/session-context.js';
import type { ModelMessage } from '../../src/engine/agents/providers/index.js';
import {
  createSessionStore,
  type NewTranscriptEntry,
  type TranscriptEntry,
} from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { answer, createScriptedProvider } from '../fakes/scripted-provider.js';

/**
 * The context budget in pieces: the cut of one call's messages (whole exchanges from the oldest,
 * never a split tool exchange, never the last user message), tool results cut with a marker, and
 * compaction (what it summarizes, what stays verbatim, the record's pointer to the summary).
 */

const logger = createLogger({ level: 'silent' }).logger;

const user = (content: string): ModelMessage => ({ role: 'user', content });
const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name: 'peek', arguments: '{}' }],
});
const result = (id: string, content: string): ModelMessage => ({
  role: 'tool',
  toolCallId: id,
  toolName: 'peek',
  content,
});
const reply = (content: string): ModelMessage => ({ role: 'assistant', content });

/** Twenty exchanges: a question, a tool call, its 4,000-character result, an answer. */
function exchanges(count = 20): ModelMessage[] {
  return Array.from({ length: count }, (_, index) => [
    user(`question ${index}`),
    call(`c${index}`),
    result(`c${index}`, 'r'.repeat(4000)),
    reply(`answer ${index}`),
  ]).flat();
}

/** A tool result answers a call made earlier in the same window. */
function everyResultHasItsCall(messages: readonly ModelMessage[]): boolean {
  const calls = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const made of message.toolCalls ?? []) calls.add(made.id);
    if (message.role === 'tool' && !calls.has(message.toolCallId)) return false;
  }
  return true;
}

describe("an agent's context budget", () => {
  it('is the smallest context of its model chain, with the reply room and the limits of `context`', () => {
    const validated = validateConfig({
      models: {
        big: {
          provider: 'openai',
          model: 'b',
          contextTokens: 200_000,
          maxTokens: 8000,
          fallbacks: ['small'],
        },
        small: { provider: 'openai', model: 's', contextTokens: 16_000 },
        plain: { provider: 'openai', model: 'p' },
      },
      agents: { main: { model: 'big' } },
      context: { toolResultPercent: 10, compactAtPercent: 50 },
    });
    if (!validated.ok) throw new Error(JSON.stringify(validated.error));
    expect(contextBudget(validated.value, 'big')).toEqual({
      contextTokens: 16_000,
      replyTokens: 8000,
      toolResultChars: 6400,
      compactAtTokens: 8000,
      compaction: true,
    });
    expect(contextBudget(validated.value, 'plain')).toMatchObject({
      contextTokens: 128_000,
      replyTokens: 4096,
    });
  });
});

describe('fitting one call to the budget', () => {
  it('sends everything when it fits', () => {
    const messages = exchanges(3);
    expect(fitMessages(messages, { budgetTokens: 100_000, toolResultChars: 10_000, pinned: 0 })).toEqual(
      messages,
    );
  });

  it('drops whole exchanges from the oldest: the window starts at a user message and splits no tool exchange', () => {
    const messages = exchanges();
    const budgetTokens = 5000;
    const fitted = fitMessages(messages, { budgetTokens, toolResultChars: 100_000, pinned: 0 });
    expect(messagesTokens(fitted)).toBeLessThanOrEqual(budgetTokens);
    expect(fitted.length).toBeLessThan(messages.length);
    expect(fitted[0]).toEqual(user(expect.stringMatching(/^question /)));
    expect(everyResultHasItsCall(fitted)).toBe(true);
    expect(fitted).toEqual(messages.slice(messages.length - fitted.length));
    expect(fitted.at(-1)).toEqual(reply('answer 19'));
  });

  it('keeps the last user message and its tool exchange, squeezing its results when they alone are over', () => {
    const messages = [
      ...exchanges(2),
      user('the last question'),
      call('big'),
      result('big', 'x'.repeat(40_000)),
    ];
    const fitted = fitMessages(messages, { budgetTokens: 2000, toolResultChars: 100_000, pinned: 0 });
    expect(fitted[0]).toEqual(user('the last question'));
    expect(fitted).toHaveLength(3);
    const squeezed = fitted[2] as Extract<ModelMessage, { role: 'tool' }>;
    expect(squeezed.content).toContain(
      '[… cut: 2,000 of 40,000 characters shown; the whole result is in the transcript]',
    );
    expect(messagesTokens(fitted)).toBeLessThanOrEqual(2000);
  });

  it('keeps the pinned summary first whatever else is dropped', () => {
    const summary = user('⟦system⟧ Summary of the conversation before this point');
    const fitted = fitMessages([summary, ...exchanges()], {
      budgetTokens: 3000,
      toolResultChars: 100_000,
      pinned: 1,
    });
    expect(fitted[0]).toBe(summary);
    expect(fitted[1]).toEqual(user(expect.stringMatching(/^question /)));
    expect(everyResultHasItsCall(fitted)).toBe(true);
  });
});

describe('an oversized tool result', () => {
  it('is cut in what the model sees, with a marker; the messages given are not changed', () => {
    const big = 'y'.repeat(200_000);
    const messages = [user('read it'), call('c'), result('c', big)];
    const fitted = fitMessages(messages, { budgetTokens: 1_000_000, toolResultChars: 6000, pinned: 0 });
    const cut = fitted[2] as Extract<ModelMessage, { role: 'tool' }>;
    expect(cut.content.startsWith('y'.repeat(6000))).toBe(true);
    expect(cut.content).toContain(
      '[… cut: 6,000 of 200,000 characters shown; the whole result is in the transcript]',
    );
    expect(cut.content.length).toBeLessThan(6200);
    expect((messages[2] as Extract<ModelMessage, { role: 'tool' }>).content).toBe(big);
  });

  it('is left whole at or under the limit', () => {
    expect(truncateResult('abc', 3)).toBe('abc');
  });
});

const BUDGET: ContextBudget = {
  contextTokens: 8000,
  replyTokens: 1000,
  toolResultChars: 8000,
  compactAtTokens: 6400,
  compaction: true,
};

/** A session of `turns` exchanges in a memory store; returns the store and what it recorded. */
async function seededSession(turns: number) {
  const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
  const sessions = createSessionStore({ store });
  const key = 'agent:main:webchat:direct:local';
  await sessions.ensure(key, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
  });
  const append = (entry: NewTranscriptEntry) => sessions.append(key, entry);
  for (let index = 0; index < turns; index += 1) {
    await append({ role: 'user', text: `question ${index}`, senderId: 'webchat:local' });
    await append({
      role: 'assistant',
      text: '',
      toolCalls: [{ id: `c${index}`, name: 'peek', arguments: '{}' }],
    });
    await append({ role: 'tool', text: 'r'.repeat(3000), toolCallId: `c${index}`, toolName: 'peek' });
    await append({ role: 'assistant', text: `answer ${index}` });
  }
  return { store, sessions, key, append };
}

describe('compaction', () => {
  it('summarizes the older exchanges into one entry, never the last user message or its open tool exchange', async () => {
    const { store, sessions, key, append } = await seededSession(10);
    const last = await append({ role: 'user', text: 'the last question', senderId: 'webchat:local' });
    await append({ role: 'assistant', text: '', toolCalls: [{ id: 'open', name: 'peek', arguments: '{}' }] });
    const { provider, requests } = createScriptedProvider([answer('They asked ten questions.')]);
    const context = sessionContext(await sessions.transcript(key), undefined);
    const outcome = await compactSession({
      provider,
      context,
      budget: BUDGET,
      multiUser: false,
      signal: new AbortController().signal,
      record: append,
    });
    expect(outcome.status).toBe('compacted');
    if (outcome.status !== 'compacted') return;
    const covered = outcome.entry.compaction;
    expect(covered?.fromSeq).toBe(0);
    expect(covered?.toSeq).toBeLessThan(last.seq);
    expect(outcome.entry).toMatchObject({ role: 'system', text: 'They asked ten questions.' });
    expect(outcome.context.entries[0]?.role).toBe('user');
    expect(outcome.context.entries.at(-1)?.toolCalls?.[0]?.id).toBe('open');
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.tools).toEqual([]);
    expect(requests[0]?.messages[0]?.content).toContain('question 0');
    // The model's next context: the summary first, then what it does not cover.
    const messages = contextMessages(sessionContext(await sessions.transcript(key), outcome.entry), {
      multiUser: false,
    });
    expect(messages[0]?.content).toContain('They asked ten questions.');
    expect(messages.some((message) => message.content === 'the last question')).toBe(true);
    expect(messages.some((message) => message.content === 'question 0')).toBe(false);
    await store.close();
  });

  it('has nothing to do when only the last message is there', async () => {
    const { store, sessions, key } = await seededSession(0);
    await sessions.append(key, { role: 'user', text: 'hello' });
    const { provider, requests } = createScriptedProvider([answer('unused')]);
    const outcome = await compactSession({
      provider,
      context: sessionContext(await sessions.transcript(key), undefined),
      budget: BUDGET,
      multiUser: false,
      signal: new AbortController().signal,
      record: (entry) => sessions.append(key, entry),
    });
    expect(outcome.status).toBe('nothing');
    expect(requests).toHaveLength(0);
    await store.close();
  });

  it('finds the summary through the record when it is older than the history read', async () => {
    const { store, sessions, key, append } = await seededSession(3);
    const summary = await append({
      role: 'system',
      text: 'summary',
      compaction: { fromSeq: 0, toSeq: 7, entries: 8 },
    });
    for (let index = 0; index < 10; index += 1) await append({ role: 'user', text: `later ${index}` });
    const history: TranscriptEntry[] = await sessions.transcript(key, { last: 5 });
    const context = await readSessionContext(sessions, key, history);
    expect(context.summary).toEqual(summary);
    expect(context.entries.map((entry) => entry.text)).toEqual([
      'later 5',
      'later 6',
      'later 7',
      'later 8',
      'later 9',
    ]);
    // A new session store on the same store (a restart): the record read back still points at it.
    const restarted = createSessionStore({ store });
    expect(await restarted.compaction(key)).toEqual(summary);
    expect((await restarted.append(key, { role: 'user', text: 'after' })).seq).toBe(23);
    await restarted.reset(key);
    expect(await restarted.compaction(key)).toBeUndefined();
    await store.close();
  });
});
