import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type Config, validateConfig } from '../../src/base/config/index.js';
import type { InboundHandler, InboundMessage } from '../../src/base/messages/index.js';
import {
  type CompactRequest,
  createTurnStream,
  type TurnRequest,
  type TurnRunner,
  type TurnSession,
} from '../../src/engine/agents/index.js';
import { createMetrics, createObserver } from '../../src/engine/observability/index.js';
import { parseExposition } from '../helpers/prometheus.js';

/**
 * `src/engine/observability` without a gateway: a registry per host (never prom-client's global one),
 * the scrape-time gauges bound to the running gateway, the observed inbound handler (one timer per message), and the
 * strictness of the Prometheus reader the `/metrics` tests rely on.
 */

function config(): Config {
  const result = validateConfig({});
  if (!result.ok) throw new Error('the empty config does not validate');
  return result.value;
}

describe('createMetrics', () => {
  it('keeps each host on its own registry, never the global one', async () => {
    const first = createMetrics({ processMetrics: false });
    const second = createMetrics({ processMetrics: false });
    first.instruments.restarts.inc();
    const read = async (metrics: typeof first) => parseExposition(await metrics.text());
    expect((await read(first)).value('switchboard_restarts_total')).toBe(1);
    expect((await read(second)).value('switchboard_restarts_total')).toBe(0);
    expect(await globalRegistry.metrics()).not.toContain('switchboard_');
  });

  it('reads queue depth and channel states from the bound gateway at each scrape, and drops them once unbound', async () => {
    const metrics = createMetrics({ processMetrics: false });
    let depth = 3;
    const unbindFirst = metrics.bind({
      queueDepth: () => depth,
      channels: () => ({ webchat: 'connected', slack: 'retrying' }),
    });
    let scraped = parseExposition(await metrics.text());
    expect(scraped.value('switchboard_queue_depth')).toBe(3);
    expect(scraped.value('switchboard_channel_connected', { channel: 'slack' })).toBe(0);
    depth = 5;
    expect(parseExposition(await metrics.text()).value('switchboard_queue_depth')).toBe(5);
    // A restart: the next gateway binds before the last one's late unbind, which then changes nothing.
    metrics.bind({ queueDepth: () => 1, channels: () => ({ webchat: 'connected' }) });
    unbindFirst();
    scraped = parseExposition(await metrics.text());
    expect(scraped.value('switchboard_queue_depth')).toBe(1);
    expect(scraped.value('switchboard_channel_connected', { channel: 'slack' })).toBeUndefined();
  });

  it('counts deaf reconnects across in-process restarts, each gateway counting from 0', async () => {
    const metrics = createMetrics({ processMetrics: false });
    let deaf = 1;
    const channels = () => ({ slack: 'connected' });
    metrics.bind({ queueDepth: () => 0, channels, deafReconnects: () => ({ slack: deaf }) });
    const read = async () =>
      parseExposition(await metrics.text()).value('switchboard_channel_deaf_reconnects_total', {
        channel: 'slack',
      });
    expect(await read()).toBe(1);
    deaf = 3;
    expect(await read()).toBe(3);
    expect(await read()).toBe(3);
    // The next gateway's supervisor starts from 0; the counter goes on.
    metrics.bind({ queueDepth: () => 0, channels, deafReconnects: () => ({ slack: 2 }) });
    expect(await read()).toBe(5);
  });
});

describe('the observed turn runner', () => {
  it('counts turns and passes /compact through to the runner', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const compacted: string[] = [];
    const runner: TurnRunner = {
      runTurn: () => createTurnStream(async () => ({ status: 'done' })),
      compact: async (request) => {
        compacted.push(request.sessionKey);
        return { status: 'nothing', reason: 'short' };
      },
    };
    const observed = createObserver({ metrics, config: config() }).turns(runner);
    expect(await observed.compact?.({ sessionKey: 'agent:main:main' } as CompactRequest)).toEqual({
      status: 'nothing',
      reason: 'short',
    });
    expect(compacted).toEqual(['agent:main:main']);
    const turn = observed.runTurn(
      { agentId: 'main', route: { channel: 'webchat' }, depth: 0 } as TurnRequest,
      {} as TurnSession,
    );
    for await (const _event of turn);
    await turn.result;
    const scraped = parseExposition(await metrics.text());
    expect(scraped.value('switchboard_turns_total', { agent: 'main', outcome: 'done' })).toBe(1);
  });
});

describe('the observed inbound handler', () => {
  it('counts and times each message by its channel, a failed one too, and changes nothing', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const answers: InboundHandler = async (message) => {
      if (message.text === 'fail') throw new Error('turn failed');
      return { sessionKey: 'agent:main:webchat:direct:local', replies: [] };
    };
    const observed = createObserver({ metrics, config: config() }).inbound(answers);
    const message = (text: string): InboundMessage =>
      ({ channel: 'webchat', text, senderId: 'webchat:local', messageId: text }) as InboundMessage;
    expect(await observed(message('hello'))).toEqual({
      sessionKey: 'agent:main:webchat:direct:local',
      replies: [],
    });
    await expect(observed(message('fail'))).rejects.toThrow('turn failed');
    const scraped = parseExposition(await metrics.text());
    expect(scraped.value('switchboard_messages_received_total', { channel: 'webchat' })).toBe(2);
    expect(scraped.value('switchboard_message_duration_seconds_count', { channel: 'webchat' })).toBe(2);
    expect(scraped.value('switchboard_message_duration_seconds_sum', { channel: 'webchat' })).toBeGreaterThan(
      0,
    );
    // One timer per message: the store's operations are no longer timed one by one.
    expect(await metrics.text()).not.toContain('switchboard_store_operation_duration_seconds');
  });
});

describe('the Prometheus reader of the tests', () => {
  const valid = '# HELP up Whether it is up.\n# TYPE up gauge\nup{job="a\\"b"} 1\n';

  it('reads a valid exposition', () => {
    expect(parseExposition(valid).value('up', { job: 'a"b' })).toBe(1);
  });

  it.each([
    ['a sample without a TYPE', 'other 1\n'],
    ['an unquoted label value', '# TYPE up gauge\nup{job=a} 1\n'],
    ['a bad value', '# TYPE up gauge\nup 1,5\n'],
    ['a bad metric name', '# TYPE 1up gauge\n1up 1\n'],
    ['an unknown type', '# TYPE up meter\nup 1\n'],
    ['a bucket without le', '# TYPE h histogram\nh_bucket{x="1"} 1\n'],
    ['no final newline', '# TYPE up gauge\nup 1'],
  ])('refuses %s', (_what, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});
