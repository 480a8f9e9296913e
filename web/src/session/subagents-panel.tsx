// A session's sub-agents (`GET /api/sessions/:key/subagents/tree`): each child's status, runtime,
// label and model, its own children under it, refreshed every few seconds, and kill (after a
// confirm) and steer (a message) as `/subagents` does them. Owners only (the API refuses others).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useMe } from '../me.js';
import { type SubagentNode, SubagentTree } from './subagent-tree.js';
import './session-actions.css';

/** How often the tree is read again while the panel is open. */
const REFRESH_MS = 3000;

type Load =
  | { state: 'loading' }
  | { state: 'loaded'; children: SubagentNode[] }
  | { state: 'failed'; problem: string };

export function SubagentsPanel({ sessionKey }: { sessionKey: string }) {
  const me = useMe();
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; failed: boolean } | undefined>();
  const headingId = `subagents-${sessionKey}`;
  const live = useRef(true);

  const refresh = useCallback(async () => {
    setBusy(true);
    try {
      const answer = await api<{ children: SubagentNode[] }>(
        `/api/sessions/${encodeURIComponent(sessionKey)}/subagents/tree`,
      );
      if (live.current) setLoad({ state: 'loaded', children: answer.children });
    } catch (error) {
      if (live.current) setLoad({ state: 'failed', problem: problemText(error) });
    } finally {
      if (live.current) setBusy(false);
    }
  }, [sessionKey]);

  useEffect(() => {
    if (!me.owner) return;
    live.current = true;
    setLoad({ state: 'loading' });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (document.visibilityState !== 'hidden') await refresh();
      if (live.current) timer = setTimeout(tick, REFRESH_MS);
    };
    void tick();
    return () => {
      live.current = false;
      clearTimeout(timer);
    };
  }, [me.owner, refresh]);

  /** Kills or steers the child `node` in the session that spawned it; the answer is announced. */
  const act = useCallback(
    async (node: SubagentNode, action: 'kill' | 'steer', message?: string): Promise<boolean> => {
      try {
        const answer = await api<{ text: string }>(
          `/api/sessions/${encodeURIComponent(node.parentSessionKey)}/subagents/${action}`,
          { target: node.runId, ...(message === undefined ? {} : { message }) },
        );
        setOutcome({ text: `${node.label || node.runId}: ${answer.text}`, failed: false });
        await refresh();
        return true;
      } catch (error) {
        setOutcome({ text: `${action} ${node.label || node.runId}: ${problemText(error)}`, failed: true });
        return false;
      }
    },
    [refresh],
  );

  if (!me.owner) return null;
  return (
    <section class="subagents card" aria-labelledby={headingId} aria-busy={load.state === 'loading' || busy}>
      <div class="subagents-head">
        <h3 id={headingId}>Sub-agents</h3>
        <button type="button" class="plain" onClick={() => void refresh()} disabled={busy}>
          Refresh
        </button>
      </div>
      <p aria-live="polite" class="muted">
        {outcome && !outcome.failed ? outcome.text : ''}
      </p>
      {outcome?.failed && <p role="alert">{outcome.text}</p>}
      {load.state === 'loading' && <p class="muted">Loading sub-agents…</p>}
      {load.state === 'failed' && <p role="alert">Could not read the sub-agents: {load.problem}</p>}
      {load.state === 'loaded' && load.children.length === 0 && (
        <p class="muted">No sub-agents in the last 30 minutes.</p>
      )}
      {load.state === 'loaded' && load.children.length > 0 && (
        <SubagentTree nodes={load.children} act={act} />
      )}
    </section>
  );
}
