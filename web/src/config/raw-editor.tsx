// The config as JSONC text: the whole file (apply) or a merge patch (patch). Nothing is checked
// here: the gateway validates it at the review, names what is wrong, and the text stays as typed.
export interface RawDraft {
  action: 'patch' | 'apply';
  text: string;
}

export function RawEditor(props: { draft: RawDraft; onChange(draft: RawDraft): void; onReview(): void }) {
  const { draft } = props;
  return (
    <form
      class="config-raw"
      aria-label="Raw config"
      onSubmit={(event) => {
        event.preventDefault();
        props.onReview();
      }}
    >
      <label for="config-raw-action">What the text is</label>
      <select
        id="config-raw-action"
        aria-describedby="config-raw-action-hint"
        value={draft.action}
        onChange={(event) =>
          props.onChange({ ...draft, action: event.currentTarget.value as RawDraft['action'] })
        }
      >
        <option value="apply">The whole config</option>
        <option value="patch">A merge patch</option>
      </select>
      <p class="muted config-hint" id="config-raw-action-hint">
        {draft.action === 'apply'
          ? 'Replaces the file; comments are kept where the values stay.'
          : 'Only the keys given change; null removes one.'}
      </p>
      <label for="config-raw-text">Config (JSON or JSONC; secrets as REDACTED stay as they are)</label>
      <textarea
        id="config-raw-text"
        spellcheck={false}
        rows={24}
        value={draft.text}
        onInput={(event) => props.onChange({ ...draft, text: event.currentTarget.value })}
      />
      <div class="config-actions">
        <button type="submit" disabled={draft.text.trim() === ''}>
          Review change
        </button>
      </div>
    </form>
  );
}
