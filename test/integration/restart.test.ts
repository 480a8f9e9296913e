import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { activeResources, openFileDescriptors, openFiles } from '../helpers/resources.js';

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

async function whoami(target: TestGateway): Promise<string> {
  return (await target.send('/whoami')).body.replies[0].text;
}

describe('in-process restart', () => {
  it('twenty restarts in a row keep answering and leak no handles, listeners or timers', async () => {
    gateway = await startTestGateway({ config: { store: {} } });
    await gateway.send('warm up the store and transcript path');
    expect(await whoami(gateway)).toBe('You are webchat:local (owner).');
    const signalListeners = () =>
      ['SIGUSR1', 'SIGTERM', 'SIGINT'].map((signal) => process.listenerCount(signal));
    const listenersBefore = signalListeners();
    // The test's own requests close their connections; wait until none is left half-closed.
    await expect.poll(() => activeResources().TCPSocketWrap ?? 0).toBe(0);
    // The store's checkpoint thread opens the WAL at its first checkpoint, up to 200 ms after
    // the first commit: until both connections hold it, the count is not the settled one.
    await expect.poll(() => openFiles('.sqlite-wal'), { timeout: 5000 }).toBe(2);
    const resourcesBefore = activeResources();

    for (let restart = 1; restart <= 20; restart += 1) {
      await gateway.restart();
      expect(gateway.host.restarts).toBe(restart);
      expect(await whoami(gateway)).toBe('You are webchat:local (owner).');
    }
    await gateway.send('after twenty restarts');

    // Closed sockets and timers are released on the next turns of the event loop. A leak grows
    // with each restart; the baseline may hold one descriptor SQLite had open for a moment (the
    // directory it fsyncs, a close it defers while another connection holds a lock), so the
    // descriptors may only not grow.
    const withoutFiles = ({ fileDescriptors, ...handles }: Record<string, number>) => handles;
    await expect
      .poll(() => withoutFiles(activeResources()), { timeout: 5000 })
      .toEqual(withoutFiles(resourcesBefore));
    await expect.poll(() => openFiles('.sqlite-wal'), { timeout: 5000 }).toBe(2);
    await expect
      .poll(openFileDescriptors, { timeout: 5000 })
      .toBeLessThanOrEqual(resourcesBefore.fileDescriptors ?? 0);
    expect(signalListeners()).toEqual(listenersBefore);
    const transcript = await gateway.request(
      'GET',
      '/api/sessions/agent:main:webchat:direct:local/transcript',
    );
    expect(transcript.body.entries.map((entry: { text: string }) => entry.text)).toContain(
      'after twenty restarts',
    );
  });

  it('restart requests close together coalesce', async () => {
    gateway = await startTestGateway();
    const first = gateway.restart();
    const joined = [gateway.restart(), gateway.restart(), gateway.restart()];
    await Promise.all([first, ...joined]);
    expect(gateway.host.restarts).toBeLessThanOrEqual(2);
    expect(await whoami(gateway)).toContain('webchat:local');
  });

  it('a restart with an invalid config keeps the running gateway and logs the JSON path', async () => {
    gateway = await startTestGateway();
    const urlBefore = gateway.url;
    await writeFile(gateway.configPath, '{ "http": { "port": "eighty" } }');
    await gateway.restart();
    expect(gateway.url).toBe(urlBefore);
    expect(await whoami(gateway)).toContain('webchat:local');
    const refused = gateway.logLines.find((line) => line.includes('Restart refused'));
    expect(refused).toContain('/http/port');
  });

  it('keeps transcripts across a stop and a start (SQLite)', async () => {
    const first = await startTestGateway();
    await first.send('remember this', 'frank');
    await first.stop();
    gateway = await startTestGateway({ dir: first.dir });
    const transcript = await gateway.request(
      'GET',
      '/api/sessions/agent:main:webchat:direct:frank/transcript',
    );
    expect(transcript.status).toBe(200);
    expect(transcript.body.entries[0]).toMatchObject({
      role: 'user',
      text: 'remember this',
      senderId: 'webchat:frank',
    });
    expect(transcript.body.entries).toHaveLength(2);
  });
});
