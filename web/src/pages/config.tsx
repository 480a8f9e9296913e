// The config page (owner only): the redacted config as a form from the schema or as raw JSONC,
// every edit reviewed as a diff before it is saved through the gateway's editor, the restart
// waited for with its note, and the history with each change's diff and undo.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ConfigEditAnswer, ConfigFileView } from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import { ConfigEditors, type LoadedConfig } from '../config/config-editors.js';
import type { JsonObject, SchemaNode } from '../config/config-value.js';
import { RestartWait } from '../config/restart-wait.js';
import './config.css';

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; problem: string }
  | ({ state: 'ready' } & LoadedConfig);

export function ConfigPage() {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [saved, setSaved] = useState<ConfigEditAnswer | undefined>(undefined);
  const load = useCallback(async () => {
    setLoaded({ state: 'loading' });
    try {
      const [answer, schema] = await Promise.all([
        api<ConfigFileView>('/api/config'),
        api<SchemaNode>('/api/config/schema'),
      ]);
      // The gateway's note says what the page's own alert says, in the tool's words: not repeated.
      const errors = answer.config ? undefined : (answer.errors ?? []);
      setLoaded({
        state: 'ready',
        path: answer.path,
        hash: answer.hash,
        // The file is JSON text: every value of the redacted object is JSON.
        config: (answer.config ?? {}) as JsonObject,
        schema,
        errors,
      });
    } catch (error) {
      setLoaded({ state: 'failed', problem: problemText(error) });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <section aria-labelledby="page-title" class="config-page" aria-busy={loaded.state === 'loading'}>
      <h2 id="page-title">Config</h2>
      {loaded.state === 'loading' && <p role="status">Loading the config…</p>}
      {loaded.state === 'failed' && <p role="alert">{loaded.problem}</p>}
      {saved && (
        <RestartWait
          saved={saved}
          onDone={() => {
            setSaved(undefined);
            void load();
          }}
        />
      )}
      {loaded.state === 'ready' && !saved && (
        <>
          <p class="muted config-file">
            {loaded.path} · hash <code>{loaded.hash.slice(0, 12)}</code>
          </p>
          {loaded.errors && (
            <div role="alert" class="card">
              <p>
                The file does not load, so no part of it is shown. Fix it with the whole config (Raw JSONC):
              </p>
              <ul>
                {loaded.errors.map((error) => (
                  <li key={error}>{error}</li>
                ))}
              </ul>
            </div>
          )}
          <ConfigEditors key={loaded.hash} loaded={loaded} onSaved={setSaved} onReload={load} />
        </>
      )}
    </section>
  );
}
