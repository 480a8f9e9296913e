import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createCodeBook, normalizeCode, showCode } from '../../src/engine/identity/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

const logger = createLogger({ level: 'silent' }).logger;
const cleanups = cleanupAfterEach();
const TTL = { link: 600_000, 'link-confirm': 600_000, pair: 3_600_000 };
const LIMIT = { attempts: 5, windowMs: 60_000 };

async function sqliteStore(dir: string): Promise<Store> {
  const store = await createStore({
    url: `sqlite://${path.join(dir, 'codes.sqlite')}`,
    stateDir: dir,
    logger,
  });
  return store;
}

/** A book over `store` with a clock the test moves. */
function bookOn(store: Store, clock = { now: 1_000_000 }) {
  return { clock, book: createCodeBook({ store, ttlMs: TTL, limit: LIMIT, now: () => clock.now }) };
}

async function memoryBook() {
  const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
  cleanups.push(() => store.close());
  return bookOn(store);
}

describe('the code book', () => {
  it('redeems a code once, and only its own kind', async () => {
    const { book } = await memoryBook();
    const issued = await book.issue('link', 'slack:U1', { note: 'x' });
    if (!issued.ok) throw new Error('not issued');
    expect(issued.entry.code).toMatch(/^[A-Z2-9]{8}$/);
    expect(await book.redeem('pair', issued.entry.code, 'discord:D1')).toEqual({
      ok: false,
      reason: 'invalid',
    });
    const typed = showCode(issued.entry.code).toLowerCase();
    const redeemed = await book.redeem('link', typed, 'discord:D1');
    expect(redeemed).toMatchObject({ ok: true, entry: { identity: 'slack:U1', data: { note: 'x' } } });
    expect(await book.redeem('link', issued.entry.code, 'discord:D1')).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('answers a wrong, an expired and a used code alike', async () => {
    const { book, clock } = await memoryBook();
    const first = await book.issue('link', 'slack:U1');
    const second = await book.issue('link', 'slack:U2');
    if (!first.ok || !second.ok) throw new Error('not issued');
    await book.redeem('link', first.entry.code, 'discord:D1');
    clock.now += TTL.link;
    const used = await book.redeem('link', first.entry.code, 'discord:D2');
    const expired = await book.redeem('link', second.entry.code, 'discord:D3');
    const wrong = await book.redeem('link', 'ABCD-EFGH', 'discord:D4');
    const garbage = await book.redeem('link', 'not a code', 'discord:D5');
    expect([used, expired, wrong, garbage]).toEqual(Array(4).fill({ ok: false, reason: 'invalid' }));
  });

  it('gives an identity its pending code again, and a new one when the old expired', async () => {
    const { book, clock } = await memoryBook();
    const first = await book.issue('pair', 'slack:U9');
    const again = await book.issue('pair', 'slack:U9');
    expect(again).toMatchObject({ ok: true, reused: true });
    if (!first.ok || !again.ok) throw new Error('not issued');
    expect(again.entry.code).toBe(first.entry.code);
    clock.now += TTL.pair;
    const later = await book.issue('pair', 'slack:U9');
    if (!later.ok) throw new Error('not issued');
    expect(later.reused).toBe(false);
    expect(later.entry.code).not.toBe(first.entry.code);
    expect((await book.pending('pair')).map((entry) => entry.code)).toEqual([later.entry.code]);
  });

  it('limits attempts per identity, tells the first refusal only, and lets others through', async () => {
    const { book, clock } = await memoryBook();
    const outcomes = [];
    for (let attempt = 0; attempt < 20; attempt += 1) {
      outcomes.push(await book.issue('pair', 'slack:U9'));
      clock.now += 1000;
    }
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(LIMIT.attempts);
    const refusals = outcomes.filter((outcome) => !outcome.ok);
    expect(refusals.filter((outcome) => !outcome.ok && outcome.firstRefusal)).toHaveLength(1);
    // Guessing counts too: a limited guesser's right code is not even looked at.
    expect(await book.issue('pair', 'slack:U10')).toMatchObject({ ok: true });
    const good = await book.issue('link', 'slack:U11');
    if (!good.ok) throw new Error('not issued');
    expect(await book.redeem('link', good.entry.code, 'slack:U9')).toMatchObject({ reason: 'limited' });
    clock.now += LIMIT.windowMs;
    expect(await book.redeem('link', good.entry.code, 'slack:U9')).toMatchObject({ ok: true });
  });

  it('lets only one of two redemptions of one code through', async () => {
    const { book } = await memoryBook();
    const issued = await book.issue('link', 'slack:U1');
    if (!issued.ok) throw new Error('not issued');
    const both = await Promise.all([
      book.redeem('link', issued.entry.code, 'discord:D1'),
      book.redeem('link', issued.entry.code, 'discord:D2'),
    ]);
    expect(both.filter((outcome) => outcome.ok)).toHaveLength(1);
  });

  it('keeps codes and counts across a restart (SQLite)', async () => {
    const dir = await makeTempDir('code-book-');
    cleanups.push(() => removeDir(dir));
    const clock = { now: 5_000_000 };
    const before = await sqliteStore(dir);
    const { book } = bookOn(before, clock);
    const issued = await book.issue('link', 'slack:U1');
    for (let attempt = 0; attempt < LIMIT.attempts - 1; attempt += 1) await book.issue('pair', 'discord:D7');
    await before.close();

    const after = await sqliteStore(dir);
    cleanups.push(() => after.close());
    const reopened = bookOn(after, clock).book;
    if (!issued.ok) throw new Error('not issued');
    expect(await reopened.redeem('link', issued.entry.code, 'discord:D1')).toMatchObject({ ok: true });
    expect(await reopened.issue('pair', 'discord:D7')).toMatchObject({ ok: true, reused: true });
    expect(await reopened.issue('pair', 'discord:D7')).toMatchObject({ ok: false, reason: 'limited' });
  });

  it('normalizes typed codes and refuses what cannot be one', () => {
    expect(normalizeCode('abcd-efgh')).toBe('ABCDEFGH');
    expect(normalizeCode(' ab cd ef gh ')).toBe('ABCDEFGH');
    expect(normalizeCode('ABCD-EFG0')).toBeUndefined();
    expect(normalizeCode('ABC')).toBeUndefined();
  });
});
