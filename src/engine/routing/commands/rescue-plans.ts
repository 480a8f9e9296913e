import { randomInt } from 'node:crypto';
import { fail, ok, type Result } from '../../../base/errors/index.js';

/** How long a `/rescue` plan waits for its `yes`. */
export const RESCUE_PLAN_TTL_MS = 60_000;

/** A `/rescue` step waiting for `/rescue yes <code>` from the owner who asked for it. */
export interface RescuePlan<Step> {
  code: string;
  owner: string;
  step: Step;
  /** Epoch ms it was made. */
  at: number;
}

const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * `/rescue`'s one pending plan (issue 32 §3): a newer plan, from anyone, revokes the older; a plan
 * runs once, only for the owner who asked, within a minute, on its exact code. State private.
 */
export class RescuePlans<Step = unknown> {
  #pending: RescuePlan<Step> | undefined;
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Holds `step` for `owner` under a new code; any plan before it is revoked. */
  propose(owner: string, step: Step): RescuePlan<Step> {
    const code = Array.from({ length: 6 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
    this.#pending = { code, owner, step, at: this.#now() };
    return this.#pending;
  }

  /**
   * The plan `code` names, taken (it runs once), when `owner` asked for it less than a minute
   * ago; otherwise why not, and nothing is taken (a stranger's guess does not spend the plan).
   */
  take(owner: string, code: string): Result<RescuePlan<Step>> {
    const pending = this.#pending;
    if (!pending || pending.code !== code.trim().toLowerCase())
      return fail(`no pending rescue plan has the code ${code || '(none)'}; nothing was run`);
    if (pending.owner !== owner)
      return fail(`plan ${pending.code} was asked for by ${pending.owner}, not ${owner}; nothing was run`);
    if (this.#now() - pending.at > RESCUE_PLAN_TTL_MS) {
      this.#pending = undefined;
      return fail(
        `plan ${pending.code} expired (plans wait ${RESCUE_PLAN_TTL_MS / 1000} s); nothing was run`,
      );
    }
    this.#pending = undefined;
    return ok(pending);
  }
}
