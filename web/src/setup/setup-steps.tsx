// The Setup page's steps, in the terminal guide's order: the model, Slack and Discord (optional),
// the owners. Each input's id comes from its API field (`fieldId`), so a refusal focuses it.
import type { SetupView } from '../../../src/surfaces/control/contracts.js';
import { fieldId, type ModelChoice, type SetupForm, withModelKind } from './setup-form.js';

interface StepProps {
  view: SetupView;
  form: SetupForm;
  onChange(form: SetupForm): void;
}

type TextField = Exclude<keyof SetupForm, 'model.kind' | 'slack' | 'discord'>;

/** One labelled input; a secret is a password input that the browser does not fill or keep. */
function Field(props: StepProps & { name: TextField; label: string; hint?: string; secret?: boolean }) {
  const { form, onChange, name, label, hint, secret } = props;
  const id = fieldId(name);
  const shared = {
    id,
    spellcheck: false,
    value: form[name],
    'aria-describedby': hint ? `${id}-hint` : undefined,
    onInput: (event: Event) => onChange({ ...form, [name]: (event.target as HTMLInputElement).value }),
  };
  return (
    <div class="setup-field">
      <label for={id}>{label}</label>
      {secret ? (
        // Not kept by the browser's password manager or autofill: a token typed once.
        <input type="password" autocomplete="new-password" {...shared} />
      ) : (
        <input type="text" autocomplete="off" {...shared} />
      )}
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
    </div>
  );
}

/** A secret's hint: kept as it is when left empty, if it is set already. */
const keeps = (view: SetupView, variable: string, otherwise = '') =>
  view.secretsSet.includes(variable) ? `Empty keeps ${variable} as it is set now.` : otherwise;

export function ModelStep(props: StepProps) {
  const { view, form, onChange } = props;
  const kind = form['model.kind'];
  const chosen = view.modelKinds.find((entry) => entry.kind === kind);
  const choices: { value: ModelChoice; label: string }[] = [
    ...(view.models.length > 0
      ? [{ value: 'keep' as const, label: `Keep ${view.models.map((model) => model.text).join('; ')}` }]
      : []),
    ...view.modelKinds.map((entry) => ({ value: entry.kind, label: entry.label })),
  ];
  return (
    <fieldset class="card setup-step">
      <legend>1. The model</legend>
      <div
        class="setup-choices"
        role="radiogroup"
        aria-label="Which model should answer?"
        id={fieldId('model.kind')}
      >
        {choices.map((choice) => (
          <label key={choice.value} class="setup-choice">
            <input
              type="radio"
              name="setup-model-kind"
              value={choice.value}
              checked={kind === choice.value}
              onChange={() => onChange(withModelKind(form, view, choice.value))}
            />
            <span>{choice.label}</span>
          </label>
        ))}
      </div>
      {chosen && (
        <>
          {kind === 'compatible' && (
            <Field
              {...props}
              name="model.baseUrl"
              label="Server address (base URL)"
              hint="Ollama: http://127.0.0.1:11434/v1"
            />
          )}
          <Field {...props} name="model.model" label="Model id" />
          <Field
            {...props}
            name="model.apiKey"
            label="API key"
            secret
            hint={`Written to the env file as ${chosen.variable}. ${keeps(view, chosen.variable, kind === 'compatible' ? 'Empty for none.' : '')}`}
          />
        </>
      )}
    </fieldset>
  );
}

export function PlatformSteps(props: StepProps) {
  const { view, form, onChange } = props;
  const toggle = (name: 'slack' | 'discord') => (event: Event) =>
    onChange({ ...form, [name]: (event.target as HTMLInputElement).checked });
  return (
    <>
      <fieldset class="card setup-step">
        <legend>2. Slack (optional)</legend>
        <label class="setup-choice">
          <input type="checkbox" id="setup-slack" checked={form.slack} onChange={toggle('slack')} />
          <span>{view.slack.configured ? 'Slack is configured; set it up again' : 'Connect Slack'}</span>
        </label>
        {form.slack && (
          <>
            <p>
              Create the app from this manifest:{' '}
              <a href="https://api.slack.com/apps?new_app=1" target="_blank" rel="noreferrer noopener">
                api.slack.com/apps
              </a>{' '}
              → From a manifest → YAML. Then Install to Workspace, and copy the Bot User OAuth Token (OAuth
              &amp; Permissions) and an App-Level Token with <code>connections:write</code> (Basic
              Information).
            </p>
            <details class="setup-manifest">
              <summary>The app manifest (YAML)</summary>
              <pre>
                <code>{view.slack.manifest}</code>
              </pre>
            </details>
            <Field
              {...props}
              name="slack.botToken"
              label="Bot token (xoxb-…)"
              secret
              hint={keeps(view, 'SLACK_BOT_TOKEN')}
            />
            <Field
              {...props}
              name="slack.appToken"
              label="App-level token (xapp-…)"
              secret
              hint={keeps(view, 'SLACK_APP_TOKEN')}
            />
            <details class="setup-advanced">
              <summary>Another Slack address</summary>
              <Field
                {...props}
                name="slack.apiUrl"
                label="Slack Web API URL"
                hint="Empty for https://slack.com/api/."
              />
            </details>
          </>
        )}
      </fieldset>
      <fieldset class="card setup-step">
        <legend>3. Discord (optional)</legend>
        <label class="setup-choice">
          <input type="checkbox" id="setup-discord" checked={form.discord} onChange={toggle('discord')} />
          <span>
            {view.discord.configured ? 'Discord is configured; set it up again' : 'Connect Discord'}
          </span>
        </label>
        {form.discord && (
          <>
            <p>
              Create an application at{' '}
              <a href="https://discord.com/developers/applications" target="_blank" rel="noreferrer noopener">
                discord.com/developers
              </a>
              , then Bot → Reset Token, and switch on the Message Content intent there. The invite link is
              shown once the token is proved.
            </p>
            <Field
              {...props}
              name="discord.token"
              label="Bot token"
              secret
              hint={keeps(view, 'DISCORD_TOKEN')}
            />
            <details class="setup-advanced">
              <summary>Another Discord address</summary>
              <Field
                {...props}
                name="discord.apiBase"
                label="Discord API URL"
                hint="Empty for https://discord.com/api."
              />
            </details>
          </>
        )}
      </fieldset>
    </>
  );
}

export function OwnersStep(props: StepProps) {
  const { view } = props;
  return (
    <fieldset class="card setup-step">
      <legend>4. Owners</legend>
      <p>
        Owners may change the config, restart the gateway and run owner-only tools.{' '}
        <code>{view.operator}</code> (you, signed in with the gateway's token) always stays one.
      </p>
      <Field
        {...props}
        name="owners"
        label="Other owners"
        hint="Sender ids, comma-separated: slack:U0123ABCD (Slack profile → Copy member ID), discord:<user id>, webchat:<user>."
      />
    </fieldset>
  );
}
