// What every field of the config form has around its input: the label, the schema's description
// (backticks shown as code, all of it as text) and the default, tied to the input for screen readers.
import type { ComponentChildren } from 'preact';
import { defaultText, fieldId, type KeyPath, type SchemaNode } from './config-value.js';

/** The label, the description and the default of a field, around its input. */
export function FieldFrame(props: {
  name: string;
  node: SchemaNode;
  path: KeyPath;
  children: ComponentChildren;
}) {
  const id = fieldId(props.path);
  const hint = [props.node.description, defaultText(props.node)].filter(Boolean).join(' · ');
  return (
    <div class="config-field">
      <label for={id}>{props.name}</label>
      {props.children}
      {hint && (
        <p class="muted config-hint" id={`${id}-hint`}>
          <InlineCode text={hint} />
        </p>
      )}
    </div>
  );
}

/** The schema's descriptions mark code with backticks: shown as `<code>`, all of it as text. */
export function InlineCode({ text }: { text: string }) {
  return (
    <>{text.split('`').map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : part))}</>
  );
}

/** What an input shows while empty: the default the gateway uses then. */
export const placeholderOf = (node: SchemaNode) =>
  node.default === undefined || typeof node.default === 'object' ? undefined : String(node.default);

export const describedBy = (props: { node: SchemaNode; path: KeyPath }) =>
  props.node.description || props.node.default !== undefined ? `${fieldId(props.path)}-hint` : undefined;
