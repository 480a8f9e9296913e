import type { Result } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { DeliveryRoute } from '../../base/messages/index.js';
import { type CodeBook, type RedeemOutcome, showCode } from './code-book.js';
import { PAIR_USAGE, parseLinkArgs, parsePairArgs } from './identity-commands.js';
import { linkEdit, type PeopleEdit, type PeopleFacts, pairEdit, unlinkEdit } from './people.js';

/** Where a command was typed: the session and chat a config edit's note goes to after the restart. */
export interface EditPlace {
  sessionKey: string;
  route?: DeliveryRoute | undefined;
}

/**
 * The config file as links and pairing read and write it; the app fills it with the config
 * editor, so every change is validated, written atomically and audited with its diff (and the
 * gateway restarts to apply it, as for any edit).
 */
export interface PeopleFile {
  /** `people` and `owners` of the file now, and its hash. */
  read(): Promise<Result<PeopleFacts & { hash: string }>>;
  /** Writes `edit` as `actor` from `baseHash`; the outcome in words (restart scheduled, or why not applied). */
  write(edit: PeopleEdit & { baseHash: string; actor: string; place: EditPlace }): Promise<Result<string>>;
}

/** A pairing request waiting for an owner (the People page, `/pair list`). */
export interface PairingRequest {
  code: string;
  identity: string;
  requestedAt: number;
  expiresAt: number;
}

/** What the chat commands, the router and the People page ask of links and pairing. */
export interface IdentityPort {
  /** `/link <args>` typed by `by` in `place`: the answer. */
  link(args: string, by: string, place: EditPlace): Promise<string>;
  /** `/pair <args>` typed by an owner: the answer. */
  pair(args: string, by: string, place: EditPlace): Promise<string>;
  /**
   * A direct message from a sender the channel does not let in, on a platform with pairing: the
   * answer (a pairing code), or undefined for none (a flood past the rate limit gets silence).
   */
  pairingRequest(senderId: string): Promise<string | undefined>;
  /** Approves a pairing code as `by` (an owner): the answer. */
  approvePairing(
    code: string,
    role: string | undefined,
    by: string,
    place: EditPlace,
  ): Promise<Result<string>>;
  /** Turns a pairing code down: whether it was waiting. */
  denyPairing(code: string): Promise<boolean>;
  pendingPairings(): Promise<PairingRequest[]>;
  /** Takes `identity` out of person `personId` as `by` (an owner). */
  unlink(personId: string, identity: string, by: string, place: EditPlace): Promise<Result<string>>;
}

export interface IdentitiesOptions {
  book: CodeBook;
  file: PeopleFile;
  logger: Logger;
  /** The role a pairing approved without one gives (`member`). */
  pairingRole?: string;
}

/** The answer to a code that is wrong, expired, used or not the typist's: one text for all. */
export const INVALID_CODE =
  'That code is not valid: it may be wrong, expired or used, or not yours to type. Ask for a new one.';

/**
 * Verified identity links and pairing over one code book and the config file. A link takes two
 * steps, each proving one side: the first account asks (`/link`) and gets a code; the second
 * types it (`/link <code>`) and gets a confirmation code; the first types that one back
 * (`/link confirm <code>`), all before the first code expires (10 minutes). Only then is the
 * config edited. Pairing answers an unknown sender's direct message with a code, which an owner
 * approves (`/pair approve <code> [role]`) into a new person.
 */
export function createIdentities(options: IdentitiesOptions): IdentityPort {
  return new Identities(options);
}

class Identities implements IdentityPort {
  readonly #book: CodeBook;
  readonly #file: PeopleFile;
  readonly #logger: Logger;
  readonly #pairingRole: string;

  constructor(options: IdentitiesOptions) {
    this.#book = options.book;
    this.#file = options.file;
    this.#logger = options.logger;
    this.#pairingRole = options.pairingRole ?? 'member';
  }

  async link(args: string, by: string, place: EditPlace): Promise<string> {
    const request = parseLinkArgs(args);
    if (request.kind === 'usage') return request.text;
    if (request.kind === 'ask') return this.#askLink(by);
    if (request.kind === 'answer') return this.#answerLink(request.code, by);
    return this.#confirmLink(request.code, by, place);
  }

  async pair(args: string, by: string, place: EditPlace): Promise<string> {
    const request = parsePairArgs(args);
    if (request.kind === 'usage') return request.text;
    if (request.kind === 'list') {
      const pending = await this.pendingPairings();
      if (pending.length === 0) return 'No pairing requests are waiting.';
      return [
        'Pairing requests waiting:',
        ...pending.map(
          (entry) => `- ${showCode(entry.code)} from ${entry.identity}, until ${clock(entry.expiresAt)}`,
        ),
        PAIR_USAGE,
      ].join('\n');
    }
    if (request.kind === 'deny')
      return (await this.denyPairing(request.code)) ? 'Pairing request turned down.' : INVALID_CODE;
    const approved = await this.approvePairing(request.code, request.role, by, place);
    return approved.ok ? approved.value : approved.error;
  }

  async pairingRequest(senderId: string): Promise<string | undefined> {
    const issued = await this.#book.issue('pair', senderId);
    if (!issued.ok) {
      this.#logger.info({ sender: senderId }, 'pairing request over the rate limit');
      return issued.firstRefusal ? tooMany(issued.retryAfterMs) : undefined;
    }
    const { entry } = issued;
    if (!issued.reused) this.#logger.info({ sender: senderId }, 'pairing code issued');
    return `This gateway does not know you yet. To be let in, give an owner this pairing code: ${showCode(entry.code)} (good until ${clock(entry.expiresAt)}). Nothing else is answered until then.`;
  }

  async approvePairing(
    code: string,
    role: string | undefined,
    by: string,
    place: EditPlace,
  ): Promise<Result<string>> {
    const redeemed = await this.#book.redeem('pair', code, by);
    if (!redeemed.ok) return { ok: false, error: refusalOf(redeemed) };
    const identity = redeemed.entry.identity;
    const written = await this.#edit(by, place, (facts) =>
      pairEdit(facts, identity, role ?? this.#pairingRole),
    );
    if (written.ok) this.#logger.info({ sender: identity, by }, 'pairing approved');
    return written.ok ? { ok: true, value: `Paired: ${written.value}` } : written;
  }

  denyPairing(code: string): Promise<boolean> {
    return this.#book.withdraw('pair', code);
  }

  async pendingPairings(): Promise<PairingRequest[]> {
    return (await this.#book.pending('pair')).map((entry) => ({
      code: entry.code,
      identity: entry.identity,
      requestedAt: entry.issuedAt,
      expiresAt: entry.expiresAt,
    }));
  }

  unlink(personId: string, identity: string, by: string, place: EditPlace): Promise<Result<string>> {
    return this.#edit(by, place, (facts) => unlinkEdit(facts, personId, identity));
  }

  async #askLink(by: string): Promise<string> {
    const issued = await this.#book.issue('link', by);
    if (!issued.ok) return tooMany(issued.retryAfterMs);
    const code = showCode(issued.entry.code);
    return `Your link code is ${code}. Before ${clock(issued.entry.expiresAt)}, type /link ${code} as your other account (Slack, Discord, or the web chat signed in); you then confirm here with the code it gets. The code works once.`;
  }

  /** The second account typed the first's code: it gets the code that the first types back. */
  async #answerLink(code: string, by: string): Promise<string> {
    const redeemed = await this.#book.redeem('link', code, by, (entry) => entry.identity !== by);
    if (!redeemed.ok) return refusalOf(redeemed);
    const first = redeemed.entry;
    const issued = await this.#book.issue('link-confirm', by, { with: first.identity }, first.expiresAt);
    if (!issued.ok) return tooMany(issued.retryAfterMs);
    const confirm = showCode(issued.entry.code);
    return `Almost linked. To confirm, type /link confirm ${confirm} as ${first.identity} (where you asked for the code) before ${clock(issued.entry.expiresAt)}.`;
  }

  /** The first account typed the second's code back: both sides are proven, the config is edited. */
  async #confirmLink(code: string, by: string, place: EditPlace): Promise<string> {
    const redeemed = await this.#book.redeem('link-confirm', code, by, (entry) => entry.data?.with === by);
    if (!redeemed.ok) return refusalOf(redeemed);
    const other = redeemed.entry.identity;
    const written = await this.#edit(by, place, (facts) => linkEdit(facts, by, other));
    if (!written.ok) return written.error;
    this.#logger.info({ sender: by, with: other }, 'identities linked');
    return `Linked: ${written.value}`;
  }

  /** Reads the file, makes the edit from it, and writes it from the hash read. */
  async #edit(
    actor: string,
    place: EditPlace,
    make: (facts: PeopleFacts) => Result<PeopleEdit>,
  ): Promise<Result<string>> {
    const file = await this.#file.read();
    if (!file.ok) return { ok: false, error: `The config file could not be read: ${file.error}` };
    const edit = make(file.value);
    if (!edit.ok) return edit;
    const written = await this.#file.write({ ...edit.value, baseHash: file.value.hash, actor, place });
    if (!written.ok) return { ok: false, error: `Not written: ${written.error}` };
    return { ok: true, value: `${edit.value.text}. ${written.value}` };
  }
}

function refusalOf(outcome: Exclude<RedeemOutcome, { ok: true }>): string {
  return outcome.reason === 'invalid' ? INVALID_CODE : tooMany(outcome.retryAfterMs);
}

function tooMany(retryAfterMs: number): string {
  return `Too many code requests and attempts from this account; try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s.`;
}

/** A time as a chat shows it: `14:05 UTC`. */
function clock(time: number): string {
  return `${new Date(time).toISOString().slice(11, 16)} UTC`;
}
