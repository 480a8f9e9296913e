// The Setup form's values, keyed by the API's field names (`model.apiKey`), so that a refusal
// naming a field finds its input; and the body of `POST /api/config/setup` they make.
import type { SetupBody, SetupView } from '../../../src/surfaces/control/contracts.js';

export type ModelChoice = SetupBody['model']['kind'];

export interface SetupForm {
  'model.kind': ModelChoice;
  'model.model': string;
  'model.baseUrl': string;
  'model.apiKey': string;
  slack: boolean;
  'slack.botToken': string;
  'slack.appToken': string;
  'slack.apiUrl': string;
  discord: boolean;
  'discord.token': string;
  'discord.apiBase': string;
  /** The other owners, comma-separated. */
  owners: string;
}

/** The inputs that hold a secret: cleared after a save, and when the gateway refuses one. */
export const SECRET_FIELDS: readonly string[] = [
  'model.apiKey',
  'slack.botToken',
  'slack.appToken',
  'discord.token',
];

/** A fresh form: the configured model kept when there is one, the platforms off, the owners as they are. */
export function emptyForm(view: SetupView): SetupForm {
  const first = view.modelKinds[0];
  return {
    'model.kind': view.modelConfigured ? 'keep' : (first?.kind ?? 'openai'),
    'model.model': first?.model ?? '',
    'model.baseUrl': first?.baseUrl ?? '',
    'model.apiKey': '',
    slack: false,
    'slack.botToken': '',
    'slack.appToken': '',
    'slack.apiUrl': '',
    discord: false,
    'discord.token': '',
    'discord.apiBase': '',
    owners: view.owners.filter((owner) => owner !== view.operator).join(', '),
  };
}

/** The form with another model kind: its model id and address offered. */
export function withModelKind(form: SetupForm, view: SetupView, kind: ModelChoice): SetupForm {
  const offered = view.modelKinds.find((entry) => entry.kind === kind);
  return {
    ...form,
    'model.kind': kind,
    ...(offered ? { 'model.model': offered.model, 'model.baseUrl': offered.baseUrl ?? '' } : {}),
  };
}

export function setupBody(form: SetupForm, baseHash: string): SetupBody {
  const kind = form['model.kind'];
  const filled = (value: string) => (value.trim() === '' ? undefined : value.trim());
  return {
    baseHash,
    model:
      kind === 'keep'
        ? { kind }
        : {
            kind,
            model: form['model.model'].trim(),
            ...(kind === 'compatible' && filled(form['model.baseUrl'])
              ? { baseUrl: filled(form['model.baseUrl']) }
              : {}),
            ...(filled(form['model.apiKey']) ? { apiKey: filled(form['model.apiKey']) } : {}),
          },
    ...(form.slack
      ? {
          slack: {
            ...(filled(form['slack.botToken']) ? { botToken: filled(form['slack.botToken']) } : {}),
            ...(filled(form['slack.appToken']) ? { appToken: filled(form['slack.appToken']) } : {}),
            ...(filled(form['slack.apiUrl']) ? { apiUrl: filled(form['slack.apiUrl']) } : {}),
          },
        }
      : {}),
    ...(form.discord
      ? {
          discord: {
            ...(filled(form['discord.token']) ? { token: filled(form['discord.token']) } : {}),
            ...(filled(form['discord.apiBase']) ? { apiBase: filled(form['discord.apiBase']) } : {}),
          },
        }
      : {}),
    owners: form.owners
      .split(',')
      .map((owner) => owner.trim())
      .filter(Boolean),
  };
}

/** The input of an API field (`model.apiKey` → `setup-model-apiKey`). */
export function fieldId(field: string): string {
  return `setup-${field.replace('.', '-')}`;
}
