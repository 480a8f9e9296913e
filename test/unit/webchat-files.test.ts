import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebchatFileStore, safeFileName } from '../../src/surfaces/channels/webchat/webchat-files.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await removeDir(dir);
  dir = undefined;
});

describe('the web chat file store', () => {
  it('keeps the latest files only, each under its own random id', async () => {
    dir = await makeTempDir('webchat-files-');
    const store = createWebchatFileStore({ dir, limit: 3 });
    const kept: { id: string }[] = [];
    for (const n of [1, 2, 3, 4])
      kept.push(await store.keep({ name: `f${n}.txt`, bytes: Buffer.from(`file ${n}`) }));
    const [oldest, , , newest] = kept as [{ id: string }, unknown, unknown, { id: string }];
    expect(new Set(kept.map((file) => file.id)).size).toBe(4);
    expect(await store.read(oldest.id, 'f1.txt')).toBeUndefined();
    expect(Buffer.from((await store.read(newest.id, 'f4.txt')) ?? [])).toEqual(Buffer.from('file 4'));
    expect((await readdir(dir)).sort()).toEqual(
      kept
        .slice(1)
        .map((file) => file.id)
        .sort(),
    );
  });

  it('counts the files of an earlier run, and reads nothing outside a kept folder', async () => {
    dir = await makeTempDir('webchat-files-');
    const old = createWebchatFileStore({ dir, limit: 2 });
    const first = await old.keep({ name: 'a.txt', bytes: Buffer.from('a') });
    await old.keep({ name: 'b.txt', bytes: Buffer.from('b') });
    await utimes(path.join(dir, first.id), 1, 1);
    const store = createWebchatFileStore({ dir, limit: 2 });
    await store.keep({ name: 'c.txt', bytes: Buffer.from('c') });
    expect(await store.read(first.id, 'a.txt')).toBeUndefined();
    await mkdir(path.join(dir, 'x'), { recursive: true });
    await writeFile(path.join(dir, 'x', 'secret'), 'no');
    expect(await store.read('x', 'secret')).toBeUndefined();
    expect(await store.read(first.id, '../x/secret')).toBeUndefined();
  });

  it('turns a name into a plain file name', () => {
    expect(safeFileName('report 2026.pdf')).toBe('report_2026.pdf');
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('.env')).toBe('_env');
    expect(safeFileName('..')).toBe('_');
  });
});
