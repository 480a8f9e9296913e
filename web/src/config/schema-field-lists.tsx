// The config form's fields for collections: maps of named entries (`agents`, `models`, `routes`)
// as one fieldset per entry with add and remove, lists of strings one per line, and everything
// the form has no input for (lists of objects, unions) as JSON checked as it is typed.
import { useEffect, useState } from 'preact/hooks';
import { entrySchema, fieldId, isObject, type Json } from './config-value.js';
import { FieldFrame, InlineCode } from './field-frame.js';
import { type FieldProps, SchemaField } from './schema-field.js';

export function MapField(props: FieldProps) {
  const value = isObject(props.value) ? props.value : {};
  const loaded = isObject(props.loaded) ? props.loaded : {};
  const node = entrySchema(props.node) ?? {};
  const [name, setName] = useState('');
  const addId = `${fieldId(props.path)}-new`;
  const add = (event: Event) => {
    event.preventDefault();
    const key = name.trim();
    if (key === '' || key in value) return;
    props.onChange([...props.path, key], {});
    setName('');
  };
  return (
    <fieldset class="config-group">
      <legend>{props.name}</legend>
      {props.node.description && (
        <p class="muted config-hint">
          <InlineCode text={props.node.description} />
        </p>
      )}
      {Object.keys(value).length === 0 && <p class="muted">None yet.</p>}
      {Object.keys(value).map((key) => (
        <div key={key} class="config-entry">
          <SchemaField
            name={key}
            node={node}
            path={[...props.path, key]}
            value={value[key]}
            loaded={loaded[key]}
            onChange={props.onChange}
          />
          <button type="button" class="plain" onClick={() => props.onChange([...props.path, key], undefined)}>
            Remove {key}
          </button>
        </div>
      ))}
      <div class="config-add">
        <label for={addId}>New {props.name} entry</label>
        <input id={addId} type="text" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        <button type="button" class="plain" onClick={add} disabled={name.trim() === ''}>
          Add
        </button>
      </div>
    </fieldset>
  );
}

export function LinesField(props: FieldProps) {
  const lines = Array.isArray(props.value) ? props.value.map(String).join('\n') : '';
  return (
    <FieldFrame {...props}>
      <textarea
        id={fieldId(props.path)}
        rows={Math.min(8, Math.max(2, lines.split('\n').length + 1))}
        aria-describedby={`${fieldId(props.path)}-hint`}
        value={lines}
        onInput={(event) => {
          const text = event.currentTarget.value;
          const items = text.split('\n').map((line) => line.trim());
          props.onChange(props.path, text.trim() === '' ? undefined : items.filter(Boolean));
        }}
      />
      <p class="muted config-hint">One per line.</p>
    </FieldFrame>
  );
}

/** JSON text of its own: the config changes only while the text parses; a parse error is shown. */
export function JsonField(props: FieldProps) {
  const shown = props.value === undefined ? '' : JSON.stringify(props.value, null, 2);
  const [text, setText] = useState(shown);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  // A value changed elsewhere (a reload) replaces the text, unless the text already says it.
  useEffect(() => {
    setText((current) => (sameJson(current, props.value) ? current : shown));
  }, [shown]);
  const id = fieldId(props.path);
  return (
    <FieldFrame {...props}>
      <textarea
        id={id}
        class="config-json"
        rows={Math.min(10, Math.max(2, text.split('\n').length))}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? `${id}-problem` : `${id}-hint`}
        value={text}
        onInput={(event) => {
          const next = event.currentTarget.value;
          setText(next);
          if (next.trim() === '') {
            setProblem(undefined);
            props.onChange(props.path, undefined);
            return;
          }
          try {
            props.onChange(props.path, JSON.parse(next) as Json);
            setProblem(undefined);
          } catch (error) {
            setProblem(`${props.path.join('.')}: not JSON yet (${(error as Error).message})`);
          }
        }}
      />
      {problem && (
        <p role="alert" id={`${id}-problem`}>
          {problem}
        </p>
      )}
    </FieldFrame>
  );
}

function sameJson(text: string, value: Json | undefined): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
