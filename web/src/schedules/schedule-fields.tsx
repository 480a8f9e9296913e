// The fields both schedule forms share: the message, its target and priority, and the time: a once
// job's `at` (or a delay), a recurring job's cron, interval or weekday plus time, and its zone.
import type { RosterAgentView } from '../tools/tools-api.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
export const PRIORITIES = ['P0', 'P1', 'P2', 'P3'];

/** The form's values, as strings (blank: not given). */
export interface ScheduleValues {
  body: string;
  recipient: string;
  priority: string;
  at: string;
  afterMinutes: string;
  cron: string;
  everyMinutes: string;
  weekday: string;
  time: string;
  timezone: string;
}

export const BLANK: ScheduleValues = {
  body: '',
  recipient: '',
  priority: 'P3',
  at: '',
  afterMinutes: '',
  cron: '',
  everyMinutes: '',
  weekday: '',
  time: '',
  timezone: '',
};

/** The schedule fields of a kind: what an edit sends only when one of them changed. */
export const TIME_FIELDS = {
  once: ['at', 'afterMinutes'],
  recurring: ['cron', 'everyMinutes', 'weekday', 'time', 'timezone'],
} as const satisfies Record<string, readonly (keyof ScheduleValues)[]>;

/** The entry's input from the values: blanks left out, numbers as numbers. */
export function inputOf(
  values: ScheduleValues,
  fields: readonly (keyof ScheduleValues)[],
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field].trim();
    if (value === '') continue;
    input[field] = field === 'afterMinutes' || field === 'everyMinutes' ? Number(value) : value;
  }
  return input;
}

interface FieldsProps {
  kind: 'once' | 'recurring';
  values: ScheduleValues;
  roster: readonly RosterAgentView[];
  idPrefix: string;
  onChange(values: ScheduleValues): void;
  /** Edit: the message may stay as it is. */
  bodyRequired: boolean;
}

export function ScheduleFields({ kind, values, roster, idPrefix, onChange, bodyRequired }: FieldsProps) {
  const set = (field: keyof ScheduleValues) => (event: Event) =>
    onChange({ ...values, [field]: (event.target as HTMLInputElement).value });
  const id = (field: string) => `${idPrefix}-${field}`;
  const input = { values, id, set };
  return (
    <>
      <div class="field wide">
        <label for={id('body')}>Message</label>
        <textarea
          id={id('body')}
          rows={2}
          required={bodyRequired}
          value={values.body}
          onInput={set('body')}
        />
        <span class="hint">Markdown, sent as the scheduled message.</span>
      </div>
      <div class="field">
        <label for={id('recipient')}>To</label>
        <select id={id('recipient')} value={values.recipient} onChange={set('recipient')}>
          <option value="">the coordinator (default)</option>
          {roster.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.displayName && agent.displayName !== agent.id
                ? `${agent.displayName} (${agent.id})`
                : agent.id}
            </option>
          ))}
          <option value="user">user (the people's chat)</option>
        </select>
      </div>
      <div class="field">
        <label for={id('priority')}>Priority</label>
        <select id={id('priority')} value={values.priority} onChange={set('priority')}>
          {PRIORITIES.map((priority) => (
            <option key={priority} value={priority}>
              {priority}
            </option>
          ))}
        </select>
      </div>
      {kind === 'once' ? (
        <>
          <InputField
            field="at"
            label="At"
            placeholder="2030-01-07T09:30"
            hint="ISO time; without Z or an offset, in the configured zone."
            {...input}
          />
          <InputField field="afterMinutes" label="Or in minutes" number {...input} />
        </>
      ) : (
        <>
          <InputField
            field="cron"
            label="Cron"
            placeholder="0 9 * * 1-5"
            hint="5 fields (or 6, seconds first)."
            {...input}
          />
          <InputField field="everyMinutes" label="Or every (minutes)" number {...input} />
          <div class="field">
            <label for={id('weekday')}>Or weekly on</label>
            <select id={id('weekday')} value={values.weekday} onChange={set('weekday')}>
              <option value="">(none)</option>
              {WEEKDAYS.map((day) => (
                <option key={day} value={day}>
                  {day}
                </option>
              ))}
            </select>
          </div>
          <InputField field="time" label="at (HH:MM)" placeholder="09:30" {...input} />
          <InputField
            field="timezone"
            label="Time zone"
            placeholder="configured zone"
            hint="IANA name, e.g. Europe/Berlin. Empty: scheduler.timezone."
            {...input}
          />
        </>
      )}
    </>
  );
}

/** One text or number input with its label and hint; a number is at least 1, fractions allowed. */
function InputField(props: {
  field: keyof ScheduleValues;
  label: string;
  number?: boolean;
  placeholder?: string;
  hint?: string;
  values: ScheduleValues;
  id(field: string): string;
  set(field: keyof ScheduleValues): (event: Event) => void;
}) {
  const { field, id } = props;
  return (
    <div class="field">
      <label for={id(field)}>{props.label}</label>
      <input
        id={id(field)}
        {...(props.number ? { type: 'number', min: '1', step: 'any' } : { type: 'text' })}
        placeholder={props.placeholder}
        value={props.values[field]}
        onInput={props.set(field)}
      />
      {props.hint ? <span class="hint">{props.hint}</span> : null}
    </div>
  );
}
