import type { Config } from '../base/config/index.js';
import { fail, ok } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import {
  createCodeBook,
  createIdentities,
  type IdentityPort,
  type PeopleFacts,
  type PeopleFile,
} from '../engine/identity/index.js';
import type { ConfigEditOutcome, GatewayControl } from '../engine/tools/index.js';
import type { Store } from '../records/store/index.js';

/** A link's two steps must both be done within this (issue 34: ten minutes). */
const LINK_TTL_MS = 10 * 60_000;
/** A pairing code waits this long for an owner. */
const PAIRING_TTL_MS = 60 * 60_000;
/** Per sender: code requests and code attempts together. */
const CODE_LIMIT = { attempts: 5, windowMs: 60_000 };

/**
 * Identity links and pairing: the code book in the store, and the config file read and written
 * through the gateway control (the same editor an owner's `/config` uses: validated, audited with
 * the diff, applied by a restart).
 */
export function buildIdentity(options: {
  config: Config;
  store: Store;
  gateway: GatewayControl;
  logger: Logger;
  /** The clock codes expire by; `Date.now` unless given. */
  now?: () => number;
}): IdentityPort {
  const { config, store, gateway, logger } = options;
  const book = createCodeBook({
    store,
    ttlMs: { link: LINK_TTL_MS, 'link-confirm': LINK_TTL_MS, pair: PAIRING_TTL_MS },
    limit: CODE_LIMIT,
    ...(options.now ? { now: options.now } : {}),
  });
  return createIdentities({
    book,
    file: peopleFile(config, gateway),
    logger: logger.child({ component: 'identity' }),
  });
}

function peopleFile(running: Config, gateway: GatewayControl): PeopleFile {
  return {
    async read() {
      const view = await gateway.configGet();
      if (!view.ok) return view;
      if (!('config' in view.value)) return fail(view.value.note);
      return ok({ ...peopleOf(view.value.config, running), hash: view.value.hash });
    },
    async write(edit) {
      const outcome = await gateway.configEdit('config.patch', {
        raw: JSON.stringify(edit.patch),
        baseHash: edit.baseHash,
        actor: edit.actor,
        via: 'command',
        replacePaths: edit.replacePaths,
        note: `${edit.text} (by ${edit.actor}).`,
        sessionKey: edit.place.sessionKey,
        route: edit.place.route,
      });
      return outcome.ok ? ok(outcomeText(outcome.value)) : outcome;
    },
  };
}

/**
 * `people`, `owners` and `roles` of the file, each from the running config when the file leaves
 * it to the default; a person's absent `identities` is the default empty list.
 */
function peopleOf(file: Record<string, unknown>, running: Config): PeopleFacts {
  const written = (file.people ?? running.people) as Config['people'];
  const people = Object.fromEntries(
    Object.entries(written).map(([id, person]) => [id, { ...person, identities: person.identities ?? [] }]),
  );
  const owners = Array.isArray(file.owners) ? (file.owners as string[]) : running.owners;
  const roles = (file.roles ?? running.roles) as Config['roles'];
  return { people, owners, roles };
}

function outcomeText(outcome: ConfigEditOutcome): string {
  if (!outcome.changed) return 'The config already says so.';
  if ('restartNeeded' in outcome)
    return `Written; it applies at the next restart (${outcome.restart.reason}).`;
  return `Written; the gateway restarts in ${Math.ceil(outcome.restart.delayMs / 1000)} s to apply it.`;
}
