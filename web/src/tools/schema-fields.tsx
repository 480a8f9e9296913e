// The inputs of an action's form (see field-specs.ts): each a real <label> around its control,
// required ones marked, the schema's description shown under it, its default filled in.
import { choiceIndex, type FieldSpec, fieldLabel } from './field-specs.js';

function Control({ spec, id }: { spec: FieldSpec; id: string }) {
  const { name, schema, required } = spec;
  const described = fieldLabel(name, schema).hint ? `${id}-hint` : undefined;
  const fallback = schema.default;
  const chosen = spec.kind === 'choice' ? choiceIndex(spec.values, fallback) : '';
  switch (spec.kind) {
    case 'choice':
      return (
        <select id={id} aria-describedby={described} name={name} required={required}>
          <option value="">{required ? 'Choose…' : '(none)'}</option>
          {spec.labels.map((label, index) => (
            <option key={index} value={String(index)} selected={String(index) === chosen}>
              {label}
            </option>
          ))}
        </select>
      );
    case 'checkbox':
      // Always sent (true or false), so it is never marked required.
      return (
        <input
          type="checkbox"
          id={id}
          aria-describedby={described}
          name={name}
          defaultChecked={fallback === true}
        />
      );
    case 'number':
      return (
        <input
          type="number"
          id={id}
          aria-describedby={described}
          name={name}
          required={required}
          step={spec.integer ? '1' : 'any'}
          min={schema.minimum}
          max={schema.maximum}
          defaultValue={fallback === undefined ? undefined : String(fallback)}
        />
      );
    case 'text':
      return (
        <input
          type="text"
          id={id}
          aria-describedby={described}
          name={name}
          required={required}
          maxLength={schema.maxLength}
          defaultValue={fallback === undefined ? undefined : String(fallback)}
        />
      );
    case 'json':
      return (
        <textarea
          id={id}
          aria-describedby={described}
          name={name}
          required={required}
          rows={2}
          placeholder="JSON"
          defaultValue={fallback === undefined ? undefined : JSON.stringify(fallback)}
        />
      );
  }
}

/** The fields; `idPrefix` makes each control's id unique on the page (its label points at it). */
export function SchemaFields({ specs, idPrefix }: { specs: readonly FieldSpec[]; idPrefix: string }) {
  return (
    <>
      {specs.map((spec) => (
        <Field key={spec.name} spec={spec} id={`${idPrefix}-${spec.name}`} />
      ))}
    </>
  );
}

function Field({ spec, id }: { spec: FieldSpec; id: string }) {
  const { label, hint } = fieldLabel(spec.name, spec.schema);
  return (
    <div class={spec.kind === 'checkbox' ? 'field checkbox' : 'field'}>
      <label for={id}>
        {label} <code class="key">{spec.name}</code>
        {spec.required && spec.kind !== 'checkbox' ? (
          <abbr class="required" title="required">
            *
          </abbr>
        ) : null}
      </label>
      <Control spec={spec} id={id} />
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}
