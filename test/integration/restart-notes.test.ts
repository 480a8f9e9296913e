import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { DeliveryRoute, OutboundMessage } from '../../src/base/messages/index.js';
import { createRestartNotes, NOTE_GIVE_UP_MS } from '../../src/host/restart-note.js';
import { createRestartSentinel, newRestartIntent, SENTINEL_FILE } from '../../src/host/restart-sentinel.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { outboundTo } from '../fakes/outbound.js';
import { startTestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * The restart note's delivery policy over long outages, with a real sentinel file and lock; only
 * time is fake (a clock whose sleeps move it on at once): a platform down for most of an hour still
 * gets the note, once; after a day of failures it is dropped.
 */

const cleanups = cleanupAfterEach();

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

const ROUTE = { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '40.1' } as const;

async function setup(downForMs: number) {
  const dir = await makeTempDir('switchboard-note-outage-');
  const logLines: string[] = [];
  const { logger } = createLogger({
    level: 'info',
    destination: { write: (line) => void logLines.push(line) },
  });
  const store = await createStore({ url: 'memory://', stateDir: dir, logger });
  cleanups.push(async () => {
    await store.close();
    await removeDir(dir);
  });
  const sentinel = createRestartSentinel({ stateDir: dir, logger });
  await sentinel.record([
    {
      ...newRestartIntent({ kind: 'restart', route: ROUTE, message: 'after the outage' }, 'old'),
      status: 'committed',
    },
  ]);
  // Fake time: every sleep of the delivery loop moves the clock on by its length at once.
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = {
    now: () => now,
    async sleep(ms: number) {
      now += ms;
    },
  };
  const upAt = now + downForMs;
  const attempts: number[] = [];
  const posted: { route: DeliveryRoute; message: OutboundMessage }[] = [];
  const stopping = new AbortController();
  cleanups.push(async () => stopping.abort());
  const notes = createRestartNotes({
    sentinel,
    instance: 'new',
    sessions: createSessionStore({ store }),
    logger,
    signal: stopping.signal,
    clock,
    outboundFor: outboundTo({
      reply(route, message) {
        attempts.push(now);
        if (now < upAt) throw new Error('service_unavailable');
        posted.push({ route, message });
      },
    }),
  });
  const running = notes.run();
  const gone = () =>
    access(sentinel.file).then(
      () => false,
      () => true,
    );
  const settled = () => pollUntil('the note to leave the sentinel', gone, { timeoutMs: 20_000 });
  return { attempts, posted, logLines, stopping, running, settled };
}

describe('restart note delivery during an outage', () => {
  it('keeps retrying with backoff while the platform is down for 59 minutes, then posts the note once', async () => {
    const { attempts, posted, settled, stopping, running } = await setup(59 * 60_000);
    await settled();
    expect(posted).toEqual([
      {
        route: { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '40.1' },
        message: expect.objectContaining({
          text: 'Gateway restarted (restart): after the outage',
          notice: true,
        }),
      },
    ]);
    // Backoff: the gaps grow and are capped at 5 minutes, so an hour takes about twenty tries, not thousands.
    const gaps = attempts.slice(1).map((at, index) => at - (attempts[index] ?? at));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(5 * 60_000);
    expect(attempts.length).toBeGreaterThan(10);
    expect(attempts.length).toBeLessThan(40);
    stopping.abort();
    await running;
    expect(posted).toHaveLength(1);
  });

  it('drops the note with an error after a day of failures', async () => {
    const { attempts, posted, settled, logLines, stopping, running } = await setup(2 * NOTE_GIVE_UP_MS);
    await settled();
    expect(attempts.length).toBeGreaterThan(200);
    expect(posted).toEqual([]);
    expect(logLines.some((line) => line.includes('could not deliver the restart note for a day'))).toBe(true);
    stopping.abort();
    await running;
  });
});

describe('a restart note when the state dir moves', () => {
  it('is promised in the old state dir, committed in the new one, and posted from there', async () => {
    const gateway = await startTestGateway();
    cleanups.push(() => gateway.dispose());
    const moved = path.join(gateway.dir, 'moved-state');
    const reply = await gateway.send(`/config patch {"stateDir": ${JSON.stringify(moved)}}`);
    expect(reply.body.replies[0].text).toMatch(/^Changed stateDir\. Restarting in/);
    await pollUntil('the restart', () => gateway.host.restarts === 1 && gateway.host.loaded !== undefined);
    const events = await openEvents(gateway, 'local');
    await pollUntil('the note', () =>
      events.events.some((event) => String(event.data.text).startsWith('Gateway restarted (config-patch)')),
    );
    await pollUntil('both sentinels to be gone', async () => {
      const old = await exists(path.join(gateway.dir, 'data', SENTINEL_FILE));
      return !old && !(await exists(path.join(moved, SENTINEL_FILE)));
    });
  });
});

describe('a restart sentinel written before notes were a list', () => {
  it('is read as one committed note and posted', async () => {
    const dir = await makeTempDir('switchboard-note-v1-');
    cleanups.push(() => removeDir(dir));
    const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
    const store = await createStore({ url: 'memory://', stateDir: dir, logger });
    cleanups.push(() => store.close());
    const payload = {
      kind: 'restart',
      status: 'ok',
      ts: 1,
      route: { channel: 'webchat', chatType: 'direct', target: 'local' },
      message: 'from v1',
    };
    await writeFile(path.join(dir, SENTINEL_FILE), JSON.stringify({ version: 1, payload }));
    const posted: string[] = [];
    const stopping = new AbortController();
    const running = createRestartNotes({
      sentinel: createRestartSentinel({ stateDir: dir, logger }),
      instance: 'new',
      sessions: createSessionStore({ store }),
      logger,
      signal: stopping.signal,
      outboundFor: outboundTo({
        reply(_route, message) {
          posted.push(message.text);
        },
      }),
    }).run();
    await pollUntil('the old note to be posted', async () => !(await exists(path.join(dir, SENTINEL_FILE))));
    stopping.abort();
    await running;
    expect(posted).toEqual(['Gateway restarted (restart): from v1']);
  });
});
