import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceFiles } from '../../src/app/workspace-files.js';
import { validateConfig } from '../../src/base/config/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

/**
 * The agents' workspaces as the model context reads them (an image posted in a chat, by its
 * `/workspace/inbox/…` path) over real files: only files of the agent's own workspace, checked as
 * the file tools check theirs.
 */

let dir: string;
let files: ReturnType<typeof createWorkspaceFiles>;
const reader = {
  agentId: 'main',
  senderId: 'slack:U1',
  route: { channel: 'slack' as const, chatType: 'channel' as const, chatId: 'C1' },
};
const read = (workspacePath: string) => files.read(reader, workspacePath);

beforeAll(async () => {
  dir = await makeTempDir('workspace-files-');
  const result = validateConfig({ agents: { main: {} } });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const stateDir = path.join(dir, 'data');
  const inbox = path.join(stateDir, 'workspaces/main/inbox/slack-1');
  await mkdir(inbox, { recursive: true });
  await writeFile(path.join(inbox, 'chart.png'), 'png bytes');
  await writeFile(path.join(dir, 'secret.txt'), 'not for the model');
  // A file swapped for a symlink out of the workspace after it was saved.
  await symlink(path.join(dir, 'secret.txt'), path.join(inbox, 'swapped.png'));
  files = createWorkspaceFiles({
    config: result.value,
    configPath: path.join(dir, 'gateway.jsonc'),
    stateDir,
  });
});

afterAll(async () => {
  await removeDir(dir);
});

describe('reading a workspace file for the model', () => {
  it('reads a file of the agent own workspace', async () => {
    expect(Buffer.from(await read('/workspace/inbox/slack-1/chart.png')).toString()).toBe('png bytes');
  });

  it('refuses a symlink that leads out of the workspace, and a path that climbs out', async () => {
    await expect(read('/workspace/inbox/slack-1/swapped.png')).rejects.toThrow(/symlink/);
    await expect(read('/workspace/../../secret.txt')).rejects.toThrow(/leaves \/workspace/);
    await expect(read('/artifacts/main/x.png')).rejects.toThrow(/not a file of your workspace/);
  });
});
