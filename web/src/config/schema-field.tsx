// One field of the config form, its input chosen by the schema node: enums and booleans as
// selects (with "default" for a key the file leaves out), numbers and strings as inputs, secrets
// as password inputs that keep the stored secret until a new value is typed, nested objects and
// maps as fieldsets, lists of strings one per line, anything else as JSON.
import {
  fieldId,
  isObject,
  type Json,
  type KeyPath,
  REDACTED,
  type SchemaNode,
  typeOf,
} from './config-value.js';
import { describedBy, FieldFrame, InlineCode, placeholderOf } from './field-frame.js';
import { JsonField, LinesField, MapField } from './schema-field-lists.js';

export interface FieldProps {
  name: string;
  node: SchemaNode;
  path: KeyPath;
  value: Json | undefined;
  /** The value in the file as loaded (a secret's REDACTED placeholder, to restore). */
  loaded: Json | undefined;
  onChange(path: KeyPath, value: Json | undefined): void;
}

export function SchemaField(props: FieldProps) {
  const { node } = props;
  const type = typeOf(node);
  if (node.enum?.every((item) => typeof item === 'string')) return <EnumField {...props} />;
  if (type === 'boolean') return <EnumField {...props} options={[true, false]} />;
  if (type === 'integer' || type === 'number') return <NumberField {...props} />;
  if (type === 'string') return node['x-secret'] ? <SecretField {...props} /> : <TextField {...props} />;
  if (type === 'object' && node.properties) return <ObjectField {...props} />;
  if (type === 'object' && node.patternProperties) return <MapField {...props} />;
  if (type === 'array' && node.items && typeOf(node.items) === 'string') return <LinesField {...props} />;
  return <JsonField {...props} />;
}

function EnumField(props: FieldProps & { options?: Json[] }) {
  const options = props.options ?? props.node.enum ?? [];
  const current = props.value === undefined ? '' : JSON.stringify(props.value);
  return (
    <FieldFrame {...props}>
      <select
        id={fieldId(props.path)}
        aria-describedby={describedBy(props)}
        value={current}
        onChange={(event) => {
          const text = event.currentTarget.value;
          props.onChange(props.path, text === '' ? undefined : (JSON.parse(text) as Json));
        }}
      >
        <option value="">
          {placeholderOf(props.node) === undefined ? '(not set)' : `(not set: ${placeholderOf(props.node)})`}
        </option>
        {options.map((option) => (
          <option key={String(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

function NumberField(props: FieldProps) {
  const { node } = props;
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(props.path)}
        type="number"
        aria-describedby={describedBy(props)}
        step={typeOf(node) === 'integer' ? 1 : 'any'}
        min={node.minimum}
        max={node.maximum}
        placeholder={placeholderOf(node)}
        value={typeof props.value === 'number' ? String(props.value) : ''}
        onInput={(event) => {
          const text = event.currentTarget.value;
          props.onChange(props.path, text === '' ? undefined : Number(text));
        }}
      />
    </FieldFrame>
  );
}

function TextField(props: FieldProps) {
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(props.path)}
        type="text"
        aria-describedby={describedBy(props)}
        placeholder={placeholderOf(props.node)}
        value={typeof props.value === 'string' ? props.value : ''}
        onInput={(event) => {
          const text = event.currentTarget.value;
          props.onChange(props.path, text === '' ? undefined : text);
        }}
      />
    </FieldFrame>
  );
}

/** Shows REDACTED, never the secret; emptied again, the stored secret is kept. */
function SecretField(props: FieldProps) {
  const stored = props.loaded === REDACTED;
  const typed = typeof props.value === 'string' && props.value !== REDACTED ? props.value : '';
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(props.path)}
        type="password"
        autocomplete="off"
        aria-describedby={describedBy(props)}
        placeholder={stored ? 'REDACTED (kept unless retyped)' : 'not set'}
        value={typed}
        onInput={(event) => {
          const text = event.currentTarget.value;
          props.onChange(props.path, text !== '' ? text : stored ? REDACTED : undefined);
        }}
      />
    </FieldFrame>
  );
}

function ObjectField(props: FieldProps) {
  const properties = props.node.properties ?? {};
  const value = isObject(props.value) ? props.value : {};
  const loaded = isObject(props.loaded) ? props.loaded : {};
  return (
    <fieldset class="config-group">
      <legend>{props.name}</legend>
      {props.node.description && (
        <p class="muted config-hint">
          <InlineCode text={props.node.description} />
        </p>
      )}
      {Object.entries(properties).map(([key, node]) => (
        <SchemaField
          key={key}
          name={key}
          node={node}
          path={[...props.path, key]}
          value={value[key]}
          loaded={loaded[key]}
          onChange={props.onChange}
        />
      ))}
    </fieldset>
  );
}
