import { randomInt } from 'node:crypto';
import { type FakeSlack, postSignedBody } from './fake-slack.js';

/**
 * The payload Slack sends when `user` runs the app's slash command `command` with `text` in
 * `channel` (fields as Slack sends them: Socket Mode carries it as JSON, HTTP mode as a form).
 */
export function slashCommand(
  fake: FakeSlack,
  options: { user: string; channel: string; text: string; command?: string },
): Record<string, string> {
  const trigger = randomInt(1_000_000_000);
  return {
    token: 'verification-token',
    team_id: fake.teamId,
    team_domain: 'team',
    channel_id: options.channel,
    channel_name: options.channel.startsWith('D') ? 'directmessage' : 'general',
    user_id: options.user,
    user_name: options.user.toLowerCase(),
    command: options.command ?? '/switchboard',
    text: options.text,
    api_app_id: 'A1',
    is_enterprise_install: 'false',
    response_url: `${fake.apiUrl.replace(/\/api\/$/, '')}/commands/T1/${trigger}/response`,
    trigger_id: `${trigger}.1.trigger`,
  };
}

/**
 * POSTs a slash command to an HTTP-mode URL as Slack does: a form body signed with
 * `signingSecret` (or a given signature). Resolves with the HTTP status once Bolt answered.
 */
export function postSignedCommand(
  url: string,
  payload: Record<string, string>,
  signingSecret: string,
  options: { signature?: string } = {},
): Promise<number> {
  const raw = new URLSearchParams(payload).toString();
  return postSignedBody(
    url,
    { raw, contentType: 'application/x-www-form-urlencoded' },
    signingSecret,
    options,
  );
}
