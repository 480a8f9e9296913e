import type { SessionStore } from '../../records/sessions/index.js';

/** How long the store probe may take before the store counts as unreachable. */
export const STORE_PROBE_MS = 2000;

export type StoreProbeOutcome = { ok: true } | { ok: false; timedOut: boolean; error: unknown };

/**
 * The store probe of the health page and `/readyz`: one page of one session, read as every list
 * is, given `timeoutMs` to answer. Never throws.
 */
export async function probeStore(
  sessions: Pick<SessionStore, 'list'>,
  timeoutMs = STORE_PROBE_MS,
): Promise<StoreProbeOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const answered = await Promise.race([
      sessions.list({ limit: 1 }).then(() => 'answered' as const),
      timeout,
    ]);
    if (answered === 'answered') return { ok: true };
    return { ok: false, timedOut: true, error: new Error(`no answer within ${timeoutMs} ms`) };
  } catch (error) {
    return { ok: false, timedOut: false, error };
  } finally {
    clearTimeout(timer);
  }
}

/** The probe as `/readyz` words it: no error text, no address. */
export async function storeReadiness(sessions: Pick<SessionStore, 'list'>) {
  const outcome = await probeStore(sessions);
  if (outcome.ok) return 'ok' as const;
  return outcome.timedOut ? ('timeout' as const) : ('unreachable' as const);
}
