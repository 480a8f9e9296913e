import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfigEditor, createConfigEditor, hashConfigText } from '../../src/base/config/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

// Issue 33 item 8: an edit whose owners would leave the operator (webchat:local, whoever signs in
// with the HTTP token) without owner rights is refused with an explanation, unless it says so.

let dir: string;
let file: string;
let editor: ConfigEditor;

beforeEach(async () => {
  dir = await makeTempDir('switchboard-lockout-');
  file = path.join(dir, 'gateway.jsonc');
  editor = createConfigEditor({ path: file, stateDir: path.join(dir, 'data'), environment: {} });
});

afterEach(async () => {
  await removeDir(dir);
});

const edit = async (raw: unknown, extra: { allowOperatorLockout?: boolean } = {}) => {
  const { hash } = await editor.snapshot();
  return editor.patch({ raw: JSON.stringify(raw), baseHash: hash, actor: 'cli', via: 'cli', ...extra });
};

describe('the operator lockout guard', () => {
  it('refuses owners without webchat:local, naming why and how to say it is meant', async () => {
    await writeFile(file, '{ "owners": ["webchat:local"] }\n');
    const refused = await edit({ owners: ['slack:U1'] });
    expect(refused).toMatchObject({ ok: false });
    const error = refused.ok ? '' : refused.error;
    expect(error).toMatch(/^owners would no longer include webchat:local/);
    expect(error).toContain('whoever signs in with the HTTP token');
    expect(error).toContain('nothing was written');
    expect(error).toContain('--allow-operator-lockout');
    expect(await readFile(file, 'utf8')).toBe('{ "owners": ["webchat:local"] }\n');
    // A file that does not exist yet stands for the defaults, whose owners are webchat:local.
    await removeDir(file);
    expect((await edit({ owners: ['slack:U1'] })).ok).toBe(false);
  });

  it('writes it when the edit says so, and does not refuse edits that keep the operator', async () => {
    await writeFile(file, '{ "owners": ["webchat:local"] }\n');
    expect(await edit({ owners: ['webchat:local', 'slack:U1'] })).toMatchObject({ ok: true, changed: true });
    expect(await edit({ owners: ['slack:U1'] }, { allowOperatorLockout: true })).toMatchObject({
      ok: true,
      changed: true,
    });
    // Already locked out (by hand): an edit that does not touch owners is not refused.
    expect(await edit({ log: { level: 'warn' } })).toMatchObject({ ok: true, changed: true });
    const text = await readFile(file, 'utf8');
    expect(JSON.parse(text).owners).toEqual(['slack:U1']);
    expect(hashConfigText(text)).toBe((await editor.snapshot()).hash);
  });
});
