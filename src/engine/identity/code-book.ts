import { randomInt } from 'node:crypto';
import { createKeyQueue, type KeyValueNamespace, type Store } from '../../records/store/index.js';

/** What a one-time code is for: the two steps of a link, or a pairing request. */
export type CodeKind = 'link' | 'link-confirm' | 'pair';

/** A code as the store keeps it: who asked for it, for what, until when, and what it carries. */
export interface CodeEntry {
  /** The code, normalized: 8 characters of `CODE_ALPHABET`, no separator. */
  code: string;
  kind: CodeKind;
  /** The sender id (`slack:U…`, `discord:…`, `webchat:…`) the code was issued to. */
  identity: string;
  issuedAt: number;
  expiresAt: number;
  /** What the step that redeems the code needs (the other side of a link, the chat of a pairing). */
  data?: Record<string, string>;
}

/** A code issued, or an identity over its rate limit (`retryAfterMs` until an attempt counts again). */
export type IssueOutcome =
  | { ok: true; entry: CodeEntry; reused: boolean }
  | { ok: false; reason: 'limited'; retryAfterMs: number; firstRefusal: boolean };

/**
 * A redeemed code (now used up), or why not. A wrong, expired and used code are one answer
 * (`invalid`), so trying codes tells nothing about which exist; `limited` is the caller over its
 * rate limit (the code was not even looked at).
 */
export type RedeemOutcome =
  | { ok: true; entry: CodeEntry }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'limited'; retryAfterMs: number; firstRefusal: boolean };

export interface CodeBookOptions {
  store: Store;
  /** How long a code stays good, by kind. */
  ttlMs: Record<CodeKind, number>;
  /** Per identity: at most `attempts` (issues and redemptions together) within `windowMs`. */
  limit: { attempts: number; windowMs: number };
  /** The clock (tests move it); `Date.now` unless given. */
  now?: () => number;
}

/** Letters and digits that cannot be mistaken for one another (no 0/O, 1/I/L, U). */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
const CODE_LENGTH = 8;

/** An identity's recent attempts, kept in the store so a restart does not reset the limit. */
interface AttemptsEntry {
  times: number[];
  /** When a refusal was last answered: later refusals are silent until an attempt counts again. */
  refusedAt?: number;
}

/**
 * The one-time codes of links and pairing, durable in the store (`identity-codes`, and
 * `identity-attempts` for the rate limit) so a restart keeps them. A code is single use (taken out
 * when redeemed), expires, and every issue and redemption counts against the asking identity's
 * limit. Operations run one at a time, so two redemptions of one code cannot both succeed.
 */
export function createCodeBook(options: CodeBookOptions): CodeBook {
  return new CodeBook(options);
}

export class CodeBook {
  readonly #codes: KeyValueNamespace<CodeEntry>;
  readonly #attempts: KeyValueNamespace<AttemptsEntry>;
  readonly #options: CodeBookOptions;
  readonly #now: () => number;
  /** One queue for the whole book: a redemption and an issue of the same code must not interleave. */
  readonly #queue = createKeyQueue();

  constructor(options: CodeBookOptions) {
    this.#options = options;
    this.#codes = options.store.namespace<CodeEntry>('identity-codes');
    this.#attempts = options.store.namespace<AttemptsEntry>('identity-attempts');
    this.#now = options.now ?? Date.now;
  }

  /**
   * A code of `kind` for `identity`: its pending one of that kind when there is one (and `data`
   * is the same), else a new one (replacing the old), good until `notAfter` at the latest.
   * Counts as an attempt.
   */
  issue(
    kind: CodeKind,
    identity: string,
    data?: Record<string, string>,
    notAfter = Number.POSITIVE_INFINITY,
  ): Promise<IssueOutcome> {
    return this.#serially(async () => {
      const limited = await this.#count(identity);
      if (limited) return limited;
      const now = this.#now();
      const pending = await this.#pendingOf(kind, identity, now);
      if (pending && sameData(pending.data, data)) return { ok: true, entry: pending, reused: true };
      if (pending) await this.#codes.delete(pending.code);
      const entry: CodeEntry = {
        code: await this.#freshCode(),
        kind,
        identity,
        issuedAt: now,
        expiresAt: Math.min(now + this.#options.ttlMs[kind], notAfter),
        ...(data ? { data } : {}),
      };
      await this.#codes.set(entry.code, entry);
      return { ok: true, entry, reused: false };
    });
  }

  /**
   * Takes `code` of `kind` out of the book as `by` redeems it: the entry when it was good (it is
   * gone now), else `invalid`. A code `accept` refuses (not `by`'s to redeem) is `invalid` too,
   * and stays for its owner. Counts as an attempt of `by`, good or not.
   */
  redeem(
    kind: CodeKind,
    code: string,
    by: string,
    accept: (entry: CodeEntry) => boolean = () => true,
  ): Promise<RedeemOutcome> {
    return this.#serially(async () => {
      const limited = await this.#count(by);
      if (limited) return limited;
      const key = normalizeCode(code);
      if (key === undefined) return { ok: false, reason: 'invalid' };
      const entry = await this.#codes.get(key);
      if (!entry || entry.kind !== kind) return { ok: false, reason: 'invalid' };
      const expired = entry.expiresAt <= this.#now();
      if (!expired && !accept(entry)) return { ok: false, reason: 'invalid' };
      await this.#codes.delete(key);
      if (expired) return { ok: false, reason: 'invalid' };
      return { ok: true, entry };
    });
  }

  /** The good codes of `kind` (a People page's pending pairing requests), oldest first. */
  pending(kind: CodeKind): Promise<CodeEntry[]> {
    return this.#serially(async () => {
      const now = this.#now();
      const found: CodeEntry[] = [];
      for await (const [, entry] of this.#codes.entries())
        if (entry.kind === kind && entry.expiresAt > now) found.push(entry);
      return found.sort((a, b) => a.issuedAt - b.issuedAt);
    });
  }

  /** Withdraws `code` of `kind` (an owner turning a pairing request down); whether it was there. */
  withdraw(kind: CodeKind, code: string): Promise<boolean> {
    return this.#serially(async () => {
      const key = normalizeCode(code);
      const entry = key === undefined ? undefined : await this.#codes.get(key);
      if (!entry || entry.kind !== kind || key === undefined) return false;
      await this.#codes.delete(key);
      return true;
    });
  }

  #serially<T>(task: () => Promise<T>): Promise<T> {
    return this.#queue.run('book', task);
  }

  /** Counts an attempt of `identity`; the refusal when it is over the limit (the attempt is not counted then). */
  async #count(identity: string): Promise<Extract<IssueOutcome, { ok: false }> | undefined> {
    const { attempts, windowMs } = this.#options.limit;
    const now = this.#now();
    const kept = await this.#attempts.get(identity);
    const times = (kept?.times ?? []).filter((time) => time > now - windowMs);
    if (times.length >= attempts) {
      const oldest = times[0] ?? now;
      // Told once per stretch of refusals: not again until an attempt counted since.
      const firstRefusal = kept?.refusedAt === undefined || kept.refusedAt < (times.at(-1) ?? now);
      if (firstRefusal) await this.#attempts.set(identity, { times, refusedAt: now });
      return { ok: false, reason: 'limited', retryAfterMs: oldest + windowMs - now, firstRefusal };
    }
    await this.#attempts.set(identity, {
      times: [...times, now],
      ...(kept?.refusedAt === undefined ? {} : { refusedAt: kept.refusedAt }),
    });
    return undefined;
  }

  /** `identity`'s good code of `kind`; expired codes met on the way are removed. */
  async #pendingOf(kind: CodeKind, identity: string, now: number): Promise<CodeEntry | undefined> {
    let found: CodeEntry | undefined;
    for await (const [key, entry] of this.#codes.entries()) {
      if (entry.expiresAt <= now) await this.#codes.delete(key);
      else if (entry.kind === kind && entry.identity === identity) found = entry;
    }
    return found;
  }

  async #freshCode(): Promise<string> {
    for (;;) {
      const code = randomCode();
      if ((await this.#codes.get(code)) === undefined) return code;
    }
  }
}

/** 8 random characters of `CODE_ALPHABET` (~39 bits). */
function randomCode(): string {
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** A code as typed (any case, spaces or a dash between its halves) → its stored form; undefined when it cannot be one. */
export function normalizeCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== CODE_LENGTH) return undefined;
  for (const character of code) if (!CODE_ALPHABET.includes(character)) return undefined;
  return code;
}

/** A code as shown: `ABCD-EFGH`. */
export function showCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
}
