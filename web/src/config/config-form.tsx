// The config as a form generated from its JSON schema: one collapsible section per top-level key
// (the plain top-level values together under "General"), each with the schema's description.
import type { ComponentChildren } from 'preact';
import {
  isObject,
  type Json,
  type JsonObject,
  type KeyPath,
  type SchemaNode,
  typeOf,
} from './config-value.js';
import { InlineCode } from './field-frame.js';
import { SchemaField } from './schema-field.js';

export interface ConfigFormProps {
  schema: SchemaNode;
  /** The config being edited. */
  value: JsonObject;
  /** The config as loaded (secrets as REDACTED). */
  loaded: JsonObject;
  onChange(path: KeyPath, value: Json | undefined): void;
}

/** Keys the form does not offer: `$schema` is for editors of the file. */
const HIDDEN = new Set(['$schema']);

export function ConfigForm(props: ConfigFormProps) {
  const entries = Object.entries(props.schema.properties ?? {}).filter(([key]) => !HIDDEN.has(key));
  const isSection = (node: SchemaNode) => typeOf(node) === 'object' || typeOf(node) === 'array';
  const general = entries.filter(([, node]) => !isSection(node));
  const sections = entries.filter(([, node]) => isSection(node));
  return (
    <form class="config-form" aria-label="Config form" onSubmit={(event) => event.preventDefault()}>
      <Section id="general" title="General" description="The gateway's top-level settings.">
        {general.map(([key, node]) => field(props, key, node))}
      </Section>
      {sections.map(([key, node]) => (
        <Section key={key} id={key} title={key} description={node.description}>
          {isObject(node.properties)
            ? Object.entries(node.properties).map(([child, childNode]) =>
                field(props, child, childNode, [key, child]),
              )
            : field(props, key, node)}
        </Section>
      ))}
    </form>
  );
}

function field(props: ConfigFormProps, name: string, node: SchemaNode, path: KeyPath = [name]) {
  const at = (root: JsonObject) =>
    path.reduce<Json | undefined>((n, k) => (isObject(n) ? n[k] : undefined), root);
  return (
    <SchemaField
      key={path.join('.')}
      name={name}
      node={node}
      path={path}
      value={at(props.value)}
      loaded={at(props.loaded)}
      onChange={props.onChange}
    />
  );
}

function Section(props: {
  id: string;
  title: string;
  description?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <details class="card config-section" id={`config-section-${props.id}`}>
      <summary>
        <span class="config-section-title">{props.title}</span>
        {props.description && (
          <span class="muted">
            {' · '}
            <InlineCode text={props.description} />
          </span>
        )}
      </summary>
      <div class="config-section-body">{props.children}</div>
    </details>
  );
}
