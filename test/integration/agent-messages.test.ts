import { describe, expect, it } from 'vitest';
import type { FakeRequest } from '../fakes/fake-model-server.js';
import { gate, startSessionScriptedModel, toolResults } from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * `messages.send` between agents over the real gateway (core toolpack, scheduler tick, fake
 * model): messages to a busy agent all arrive without a priority raised, a recipient that is not
 * an agent is refused by name, and `user` reaches the human in the coordinator's chat.
 */

const MAIN = 'agent:main:webchat:direct:local';
const OPS = 'agent:ops:main';
const cleanups = cleanupAfterEach();

async function setup() {
  const { model, script, requestsOf } = await startSessionScriptedModel(cleanups);
  const gateway: TestGateway = await startTestGateway({
    config: {
      tools: { toolpacks: ['core'] },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-core' } },
      agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: [] } },
      scheduler: { tickMs: 50 },
      gateway: { drainTimeoutMs: 200 },
    },
  });
  cleanups.push(() => gateway.dispose());
  /** Has main call the tools in one round; resolves with their results. */
  async function mainSends(calls: Record<string, unknown>[]): Promise<any[]> {
    let results: any[] = [];
    script(
      MAIN,
      { toolCalls: calls.map((args) => ({ name: 'messages.send', arguments: args })) },
      (request) => {
        results = toolResults(request).slice(-calls.length);
        return { text: 'sent' };
      },
    );
    expect((await gateway.send('send them')).status).toBe(200);
    return results;
  }
  return { gateway, model, script, requestsOf, mainSends };
}

const lastText = (request: FakeRequest | undefined) => String(request?.body.messages.at(-1)?.content ?? '');

describe('messages.send', () => {
  it('to a busy agent: every body arrives, one P2/P3 message per wake turn (as Suzumio), most urgent first', async () => {
    const { script, requestsOf, mainSends } = await setup();
    const busy = gate();
    script(OPS, async () => {
      await busy.promise;
      return { text: 'first handled' };
    });
    await mainSends([{ recipient: 'ops', body: 'first', priority: 'P1' }]);
    await expect.poll(() => requestsOf(OPS).length).toBe(1);

    // Ops is busy: three more wait, two of them of one priority.
    await mainSends([
      { recipient: 'ops', body: 'low one', priority: 'P3' },
      { recipient: 'ops', body: 'mid one', priority: 'P2' },
      { recipient: 'ops', body: 'mid two', priority: 'P2' },
    ]);
    busy.open(undefined);
    await expect.poll(() => requestsOf(OPS).length, { timeout: 10_000 }).toBe(4);
    const [, midWake, secondMidWake, lowWake] = requestsOf(OPS);
    // The two P2 messages arrive one per wake turn (not merged), the P3 one after them, still P3.
    expect(lastText(midWake)).toContain('mid one');
    expect(lastText(midWake)).not.toContain('mid two');
    expect(lastText(midWake)).toContain('"priority":"P2"');
    expect(lastText(secondMidWake)).toContain('mid two');
    expect(lastText(secondMidWake)).not.toContain('low one');
    expect(lastText(lowWake)).toContain('low one');
    expect(lastText(lowWake)).toContain('"priority":"P3"');
    expect(lastText(lowWake)).not.toContain('"priority":"P2"');
  });

  it('a message whose wake turn a restart interrupts arrives after it, once', async () => {
    const { gateway, script, requestsOf, mainSends } = await setup();
    script(OPS, { hang: true });
    await mainSends([{ recipient: 'ops', body: 'survive the restart', priority: 'P1' }]);
    await expect.poll(() => requestsOf(OPS).length).toBe(1);
    const interrupted = requestsOf(OPS)[0];

    await gateway.restart();
    await interrupted?.disconnected;
    await expect.poll(() => requestsOf(OPS).length, { timeout: 10_000 }).toBe(2);
    expect(lastText(requestsOf(OPS)[1])).toContain('survive the restart');

    // Answered now: after another restart, the next wake carries only the next message.
    await gateway.restart();
    await mainSends([{ recipient: 'ops', body: 'the next one', priority: 'P1' }]);
    await expect.poll(() => requestsOf(OPS).length, { timeout: 10_000 }).toBe(3);
    expect(lastText(requestsOf(OPS)[2])).toContain('the next one');
    expect(lastText(requestsOf(OPS)[2])).not.toContain('survive the restart');
  });

  it('refuses a recipient that is not an agent, naming it; `user` goes to the coordinator’s chat', async () => {
    const { gateway, requestsOf, mainSends } = await setup();
    const events = await openEvents(gateway, 'local');
    const results = await mainSends([
      { recipient: 'opps', body: 'typo' },
      { recipient: 'user', body: 'the build is green' },
    ]);
    expect(results[0]).toEqual({
      ok: false,
      reason: 'recipient opps is not an agent (agents: main, ops; "user" for the human)',
    });
    expect(results[1]).toMatchObject({ ok: true });
    // main is the coordinator (the default agent); its chat with the human is this web chat.
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain('main: the build is green');
    expect(requestsOf(OPS)).toHaveLength(0);
    expect(gateway.logLines.some((line) => line.includes('"targetAgent":"opps"'))).toBe(false);
  });
});
