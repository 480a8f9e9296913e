import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type Config, validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type CompactRequest,
  createTurnStream,
  type TurnRequest,
  type TurnRunner,
  type TurnSession,
} from '../../src/engine/agents/index.js';
import { createMetrics, createObserver } from '../../src/engine/observability/index.js';
import { createStore } from '../../src/records/store/index.js';
import { parseExposition } from '../helpers/prometheus.js';

/**
 * `src/engine/observability` without a gateway: a registry per host (never prom-client's global one),
 * the scrape-time gauges bound to the running gateway, the observed store's contract, and the
 * strictness of the Prometheus reader the `/metrics` tests rely on.
 */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

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

describe('the observed store', () => {
  it('gives the same namespace for the same name, times each operation and rethrows failures', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const observed = createObserver({ metrics, config: config() }).store(store);
    const things = observed.namespace<number>('things');
    expect(observed.namespace('things')).toBe(things);
    await things.set('a', 1);
    expect(await things.get('a')).toBe(1);
    expect(await things.getMany(['a', 'b'])).toEqual([1, undefined]);
    // Not indexed: `page` fails as the store's own namespace does, and is timed all the same.
    await expect(things.page({ limit: 1 })).rejects.toMatchObject({ code: 'STORE_NOT_INDEXED' });
    const scraped = parseExposition(await metrics.text());
    const count = (operation: string) =>
      scraped.value('switchboard_store_operation_duration_seconds_count', { namespace: 'things', operation });
    expect([count('set'), count('get'), count('getMany'), count('page')]).toEqual([1, 1, 1, 1]);
    const entries: [string, number][] = [];
    for await (const entry of things.entries()) entries.push(entry);
    expect(entries).toEqual([['a', 1]]);
    await observed.close();
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
