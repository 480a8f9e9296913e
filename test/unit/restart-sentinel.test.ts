import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createRestartSentinel, newRestartIntent, SENTINEL_FILE } from '../../src/host/restart-sentinel.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

/**
 * The sentinel file's on-disk route (`target`, `thread`) is the same as before DeliveryRoute was
 * the one route type in memory: files written by an older gateway load, and a newer one writes
 * what an older one reads.
 */

const { logger } = createLogger({ level: 'silent' });
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

async function sentinelIn() {
  const dir = await makeTempDir('switchboard-sentinel-');
  dirs.push(dir);
  return { file: path.join(dir, SENTINEL_FILE), sentinel: createRestartSentinel({ stateDir: dir, logger }) };
}

describe('the restart sentinel file', () => {
  it('writes a route as target and thread', async () => {
    const { file, sentinel } = await sentinelIn();
    const route = { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '40.1' } as const;
    await sentinel.record([newRestartIntent({ kind: 'restart', route }, 'host-1')]);
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written.version).toBe(2);
    expect(written.intents[0].route).toEqual({
      channel: 'slack',
      chatType: 'channel',
      target: 'C1',
      thread: '40.1',
    });
    expect((await sentinel.list())[0]?.route).toEqual(route);
  });

  it('reads a version 2 file written before, its route as a DeliveryRoute', async () => {
    const { file, sentinel } = await sentinelIn();
    const intent = {
      id: 'n1',
      kind: 'config-patch',
      status: 'committed',
      owner: 'cli',
      promisedAt: 1,
      route: { channel: 'discord', chatType: 'channel', target: 'D9' },
    };
    await writeFile(file, JSON.stringify({ version: 2, intents: [intent] }));
    const [read] = await sentinel.list();
    expect(read?.route).toEqual({ channel: 'discord', chatType: 'channel', chatId: 'D9' });
    expect(read).toMatchObject({ id: 'n1', kind: 'config-patch', status: 'committed', owner: 'cli' });
  });

  it('reads a version 1 file as one committed note', async () => {
    const { file, sentinel } = await sentinelIn();
    const payload = {
      kind: 'restart',
      sessionKey: 'agent:main:webchat:direct:local',
      route: { channel: 'webchat', chatType: 'direct', target: 'local' },
      message: 'from v1',
      ts: 5,
    };
    await writeFile(file, JSON.stringify({ version: 1, payload }));
    const [read] = await sentinel.list();
    expect(read).toMatchObject({ status: 'committed', owner: 'v1', message: 'from v1', promisedAt: 5 });
    expect(read?.route).toEqual({ channel: 'webchat', chatType: 'direct', chatId: 'local' });
  });
});
