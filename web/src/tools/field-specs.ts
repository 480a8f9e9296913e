// An action's form, described from its inputSchema: one field per property, chosen by the schema's
// type (enums and agent fields as selects), and how to read the filled form back into the input.
import type { JsonSchema, RosterAgentView } from './tools-api.js';

/** Fields that name an agent: a dropdown of the roster instead of free text. */
const ROSTER_FIELDS = new Set(['sender', 'recipient', 'agentA', 'agentB', 'targetAgent']);

export type FieldSpec = {
  name: string;
  schema: JsonSchema;
  required: boolean;
} & (
  | { kind: 'choice'; values: unknown[]; labels: string[] }
  | { kind: 'checkbox' }
  | { kind: 'number'; integer: boolean }
  | { kind: 'text' }
  | { kind: 'json' }
);

/** The schema's type, ignoring "null" in a type list. */
function typeOf(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type;
}

/** Whether a roster field also takes `user`: its default is `user`, or its description names `user`. */
function takesUser(schema: JsonSchema): boolean {
  return schema.default === 'user' || (schema.description ?? '').includes('`user`');
}

function rosterChoice(schema: JsonSchema, roster: readonly RosterAgentView[]) {
  const values: unknown[] = roster.map((agent) => agent.id);
  const labels = roster.map((agent) =>
    agent.displayName && agent.displayName !== agent.id ? `${agent.displayName} (${agent.id})` : agent.id,
  );
  // The human is a participant too where the field says so (Suzumio's `user`).
  if (takesUser(schema) && !values.includes('user')) {
    values.unshift('user');
    labels.unshift('user');
  }
  return { kind: 'choice' as const, values, labels };
}

function specOf(name: string, schema: JsonSchema, roster: readonly RosterAgentView[]) {
  const type = typeOf(schema);
  if (Array.isArray(schema.enum))
    return { kind: 'choice' as const, values: schema.enum, labels: schema.enum.map(String) };
  if (ROSTER_FIELDS.has(name) && (type === undefined || type === 'string'))
    return rosterChoice(schema, roster);
  if (type === 'boolean') return { kind: 'checkbox' as const };
  if (type === 'number' || type === 'integer')
    return { kind: 'number' as const, integer: type === 'integer' };
  if (type === 'string') return { kind: 'text' as const };
  // Objects, arrays and untyped values: JSON text.
  return { kind: 'json' as const };
}

export function fieldSpecs(schema: JsonSchema | null, roster: readonly RosterAgentView[]): FieldSpec[] {
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
    name,
    schema: property ?? {},
    required: required.has(name),
    ...specOf(name, property ?? {}, roster),
  }));
}

/** A select's option value for a default: the index of the matching value, so values keep their JSON types. */
export function choiceIndex(values: readonly unknown[], value: unknown): string {
  const index = values.findIndex((candidate) => JSON.stringify(candidate) === JSON.stringify(value));
  return index >= 0 ? String(index) : '';
}

/** The JSON value of one field (undefined: left out). Throws naming the field when its JSON is bad. */
function readField(spec: FieldSpec, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement) {
  const value = control.value;
  switch (spec.kind) {
    case 'choice':
      return value === '' ? undefined : spec.values[Number(value)];
    case 'checkbox':
      return (control as HTMLInputElement).checked;
    case 'number':
      return value === '' ? undefined : Number(value);
    case 'text':
      return value === '' ? undefined : value;
    case 'json':
      if (value.trim() === '') return undefined;
      try {
        return JSON.parse(value) as unknown;
      } catch (error) {
        throw new Error(`${spec.name}: not JSON (${(error as Error).message})`);
      }
  }
}

/** The filled form as the entry's input object. */
export function readForm(form: HTMLFormElement, specs: readonly FieldSpec[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const spec of specs) {
    const control = form.elements.namedItem(spec.name);
    if (!(control instanceof HTMLElement) || !('value' in control)) continue;
    const value = readField(spec, control as HTMLInputElement);
    if (value !== undefined) input[spec.name] = value;
  }
  return input;
}

/** The longest description used whole as a label; a longer one gives its first sentence, if short enough. */
const LABEL_LIMIT = 60;

/** `everyHours` → `Every hours`, `wait_for_quiet` → `Wait for quiet`. */
function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A field's label and hint, read from its schema: the title; else the description's first sentence
 * when short (`Delay in minutes`), the rest of the description becoming the hint; else the name in
 * words (`Every hours`), the whole description the hint. The name itself is shown beside the label.
 */
export function fieldLabel(name: string, schema: JsonSchema): { label: string; hint?: string } {
  const description = schema.description?.trim();
  if (schema.title) return description ? { label: schema.title, hint: description } : { label: schema.title };
  if (!description) return { label: humanize(name) };
  const [first = '', ...rest] = description.split(/(?<=[.;:])\s+(?=[A-Z])/);
  const sentence = first.replace(/[.;:]$/, '');
  if (sentence.length > 0 && sentence.length <= LABEL_LIMIT) {
    const more = rest.join(' ').trim();
    return more ? { label: sentence, hint: more } : { label: sentence };
  }
  return { label: humanize(name), hint: description };
}
