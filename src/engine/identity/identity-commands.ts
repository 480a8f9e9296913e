/** What `/link` and `/pair` were asked to do, read from their arguments (pure: tested alone). */

export type LinkRequest =
  | { kind: 'ask' }
  | { kind: 'answer'; code: string }
  | { kind: 'confirm'; code: string }
  | { kind: 'usage'; text: string };

export type PairRequest =
  | { kind: 'approve'; code: string; role?: string }
  | { kind: 'deny'; code: string }
  | { kind: 'list' }
  | { kind: 'usage'; text: string };

export const LINK_USAGE =
  'Usage: /link (a code to type as your other account), /link <code> (typed there), /link confirm <code> (back where you asked).';
export const PAIR_USAGE = 'Usage: /pair list, /pair approve <code> [role], /pair deny <code>.';

/** A typed code: letters, digits, one dash or space between the halves. */
const CODE = /^[A-Za-z0-9]{4}[-\s]?[A-Za-z0-9]{4}$/;
const ROLE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** `/link`, `/link <code>`, `/link confirm <code>`; anything else is the usage. */
export function parseLinkArgs(args: string): LinkRequest {
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { kind: 'ask' };
  if (words[0]?.toLowerCase() === 'confirm') {
    const code = words.slice(1).join('');
    return CODE.test(code) ? { kind: 'confirm', code } : { kind: 'usage', text: LINK_USAGE };
  }
  const code = words.join('');
  return CODE.test(code) ? { kind: 'answer', code } : { kind: 'usage', text: LINK_USAGE };
}

/** `/pair list`, `/pair approve <code> [role]`, `/pair deny <code>`; anything else is the usage. */
export function parsePairArgs(args: string): PairRequest {
  const [verb, code, role, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  const action = verb?.toLowerCase();
  if (action === 'list' && code === undefined) return { kind: 'list' };
  if (code === undefined || !CODE.test(code) || rest.length > 0) return { kind: 'usage', text: PAIR_USAGE };
  if (action === 'deny' && role === undefined) return { kind: 'deny', code };
  if (action !== 'approve') return { kind: 'usage', text: PAIR_USAGE };
  if (role === undefined) return { kind: 'approve', code };
  return ROLE.test(role)
    ? { kind: 'approve', code, role }
    : { kind: 'usage', text: `${PAIR_USAGE} A role is lowercase letters, digits, _ and -.` };
}
