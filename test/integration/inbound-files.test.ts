import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceFiles } from '../../src/app/workspace-files.js';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { DeliveryRoute, InboundMessage } from '../../src/base/messages/index.js';
import { createFileReadTool, createFileWriteTool } from '../../src/extensions/toolpacks/builtin/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { testToolContext } from '../helpers/tool-context.js';

/**
 * Files posted in chats, saved by the gateway (`createWorkspaceFiles().save`) over real files and read
 * back by the real file tools: each person's files in each chat go to a folder of their own that
 * another person's turn (or the same person's turn in another chat) cannot read; a save never
 * follows a symlink and never overwrites a file.
 */

let dir: string;
let stateDir: string;
let files: ReturnType<typeof createWorkspaceFiles>;
let fileRead: ReturnType<typeof createFileReadTool>;
let fileWrite: ReturnType<typeof createFileWriteTool>;
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

const message = (senderId: string, chat: Partial<InboundMessage>, messageId: string): InboundMessage => ({
  channel: 'slack',
  chatType: 'direct',
  chatId: senderId.replace('slack:', ''),
  senderId,
  text: 'here',
  messageId,
  ...chat,
});

const aliceDm = (id: string) => message('slack:UALICE', {}, id);
const file = (name: string, text: string) => ({ name, type: 'text/plain', bytes: Buffer.from(text) });

/** A turn of `senderId` in the chat of `chat` (a DM by default). */
const turn = (senderId: string, chat: { chatType: 'direct' | 'channel'; chatId: string }) =>
  testToolContext(logger, {
    senderId,
    isOwner: false,
    route: { channel: 'slack', ...chat } as DeliveryRoute,
  });

async function read(senderId: string, chat: { chatType: 'direct' | 'channel'; chatId: string }, at: string) {
  return (await fileRead.execute({ path: at }, turn(senderId, chat))) as Record<string, unknown>;
}

beforeAll(async () => {
  dir = await makeTempDir('inbound-files-');
  const result = validateConfig({ agents: { main: {} } });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  stateDir = path.join(dir, 'data');
  const options = { config: result.value, configPath: path.join(dir, 'gateway.jsonc'), stateDir };
  files = createWorkspaceFiles(options);
  fileRead = createFileReadTool(options);
  fileWrite = createFileWriteTool(options);
});

afterAll(async () => {
  await removeDir(dir);
});

describe('files posted in chats', () => {
  it("go to the sender's own folder: another person's turn cannot read them, nor the sender's turn in another chat", async () => {
    const saved = await files.save(aliceDm('1.1'), file('diary.txt', 'alice only'));
    const alice = { chatType: 'direct' as const, chatId: 'UALICE' };
    expect(await read('slack:UALICE', alice, saved)).toMatchObject({ text: 'alice only' });
    // Bob, in his DM and in a channel: the same path names his own (empty) folder, nothing of Alice's.
    const bobDm = await read('slack:UBOB', { chatType: 'direct', chatId: 'UBOB' }, saved);
    const bobChannel = await read('slack:UBOB', { chatType: 'channel', chatId: 'C1' }, saved);
    expect([bobDm.ok, bobChannel.ok]).toEqual([false, false]);
    expect(JSON.stringify([bobDm, bobChannel])).not.toContain('alice only');
    // Nor through the workspace: the file is not in it.
    const listing = await read('slack:UBOB', { chatType: 'channel', chatId: 'C1' }, '/workspace');
    expect(JSON.stringify(listing)).not.toContain('diary');
    // Alice's DM file is not in her channel turns (where others read the answers) either.
    expect(await read('slack:UALICE', { chatType: 'channel', chatId: 'C1' }, saved)).toMatchObject({
      ok: false,
    });
    // And no climbing out of one's folder.
    const climb = await read(
      'slack:UBOB',
      { chatType: 'direct', chatId: 'UBOB' },
      `/uploads/../slack:UALICE${saved}`,
    );
    expect(climb).toMatchObject({ ok: false });
  });

  it('the model context reads an image only in the turn of the chat it was posted in', async () => {
    const saved = await files.save(aliceDm('2.1'), file('photo.png', 'png bytes'));
    const alice = {
      agentId: 'main',
      senderId: 'slack:UALICE',
      route: { channel: 'slack' as const, chatType: 'direct' as const, chatId: 'UALICE' },
    };
    expect(Buffer.from(await files.read(alice, saved)).toString()).toBe('png bytes');
    const bob = { ...alice, senderId: 'slack:UBOB', route: { ...alice.route, chatId: 'UBOB' } };
    await expect(files.read(bob, saved)).rejects.toThrow();
  });

  it('a second file of the same name gets a name of its own; neither is overwritten', async () => {
    const first = await files.save(aliceDm('3.1'), file('notes.txt', 'first'));
    const second = await files.save(aliceDm('3.1'), file('notes.txt', 'second'));
    expect(second).not.toBe(first);
    const alice = { chatType: 'direct' as const, chatId: 'UALICE' };
    expect(await read('slack:UALICE', alice, first)).toMatchObject({ text: 'first' });
    expect(await read('slack:UALICE', alice, second)).toMatchObject({ text: 'second' });
  });

  it('cannot be replaced by a turn: /uploads is read-only, even to the person who posted the file', async () => {
    const saved = await files.save(aliceDm('5.1'), file('plan.txt', 'as posted'));
    const alice = turn('slack:UALICE', { chatType: 'direct', chatId: 'UALICE' });
    expect(await fileWrite.execute({ path: saved, content: 'changed' }, alice)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('is read-only'),
    });
    expect(await read('slack:UALICE', { chatType: 'direct', chatId: 'UALICE' }, saved)).toMatchObject({
      text: 'as posted',
    });
  });

  it('is never written through a symlink already at its place', async () => {
    const target = path.join(dir, 'target.txt');
    await writeFile(target, 'untouched');
    // Where the next save would write: a symlink planted there (by whoever could write the folder).
    const first = await files.save(aliceDm('4.1'), file('a.txt', 'a'));
    const folder = path.dirname(await hostPath(first));
    await symlink(target, path.join(folder, 'planted.txt'));
    const saved = await files.save(aliceDm('4.1'), file('planted.txt', 'overwritten?'));
    expect(await readFile(target, 'utf8')).toBe('untouched');
    expect(await read('slack:UALICE', { chatType: 'direct', chatId: 'UALICE' }, saved)).toMatchObject({
      text: 'overwritten?',
    });
  });
});

/** The host file of a saved path: found under the state dir by its folder and name. */
async function hostPath(saved: string): Promise<string> {
  const { readdir } = await import('node:fs/promises');
  const entries = await readdir(stateDir, { recursive: true });
  const tail = saved.split('/').slice(-2).join(path.sep);
  const found = entries.find((entry) => entry.endsWith(tail));
  if (found === undefined) throw new Error(`${saved} is not under ${stateDir}`);
  await mkdir(path.dirname(path.join(stateDir, found)), { recursive: true });
  return path.join(stateDir, found);
}
