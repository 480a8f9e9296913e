// After a save: the gateway restarts to apply the change. The page waits for it to come back and
// shows the restart note, read from the owner's web chat session (the note is a system entry
// there, after the save); while the gateway is down the reads fail, and are simply tried again.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConfigEditAnswer } from '../../../src/surfaces/control/contracts.js';
import { api } from '../api.js';

const POLL_MS = 1000;
/** After this long without the note, the page says so (the gateway may have refused to restart). */
const PATIENCE_MS = 90_000;

interface Entry {
  role: string;
  text: string;
  at: string;
}

type Wait = { state: 'waiting' } | { state: 'back'; note: string } | { state: 'late' };

export function RestartWait({
  saved,
  onDone,
  doneLabel = 'Back to the config',
}: {
  saved: ConfigEditAnswer;
  onDone(): void;
  doneLabel?: string;
}) {
  const { outcome, note } = saved;
  const restarting = outcome.changed && outcome.restart?.status === 'scheduled';
  const [wait, setWait] = useState<Wait>({ state: 'waiting' });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    if (!restarting) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = Date.now();
    const look = async () => {
      const found = await findNote(note.sessionKey, note.since).catch(() => undefined);
      if (found) return setWait({ state: 'back', note: found });
      if (Date.now() - started > PATIENCE_MS) return setWait({ state: 'late' });
      timer = setTimeout(look, POLL_MS);
    };
    timer = setTimeout(look, POLL_MS);
    return () => clearTimeout(timer);
  }, [saved]);
  const changed = outcome.changedPaths?.join(', ') || 'comments only';
  return (
    <section class="card config-restart" aria-labelledby="config-restart-title" aria-live="polite">
      <h3 id="config-restart-title" ref={heading} tabIndex={-1}>
        Saved
      </h3>
      {!outcome.changed && <p>Nothing to change: the config already says that.</p>}
      {outcome.changed && <p>Changed {changed}.</p>}
      {outcome.changed && !restarting && (
        <p>
          Not restarting: {outcome.restart?.reason ?? 'restarts are off'}. The change applies at the next
          start.
        </p>
      )}
      {restarting && wait.state === 'waiting' && (
        <p role="status" aria-busy="true">
          Restarting the gateway to apply it; waiting for it to come back…
        </p>
      )}
      {wait.state === 'back' && (
        <p role="status" class="config-note">
          The gateway is back. <q>{wait.note}</q>
        </p>
      )}
      {wait.state === 'late' && (
        <p role="alert">
          No restart note yet. The gateway may still be starting, or it kept the old config: see the Health
          page and your web chat.
        </p>
      )}
      <button type="button" class="plain" onClick={onDone} disabled={restarting && wait.state === 'waiting'}>
        {doneLabel}
      </button>
    </section>
  );
}

/** The newest restart note in `sessionKey` written after `since`, if any. */
async function findNote(sessionKey: string, since: string): Promise<string | undefined> {
  const page = await api<{ entries: Entry[] }>(
    `/api/sessions/${encodeURIComponent(sessionKey)}/transcript?last=20`,
  );
  const notes = page.entries.filter(
    (entry) => entry.role === 'system' && entry.text.startsWith('Gateway restarted') && entry.at >= since,
  );
  return notes.at(-1)?.text;
}
