import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppsManifestValidateArguments } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createSlackManifest, type SlackManifestOptions } from '../../src/setup/slack-manifest.js';
import { SLACK_BOT_EVENTS, SLACK_METHOD_SCOPES } from '../../src/setup/slack-scopes.js';

const SLACK_SOURCE = path.resolve(import.meta.dirname, '../../src/surfaces/channels/slack');
/** The Web API's method families (api.slack.com/methods): `<client>.<family>.<method>(`. */
const FAMILIES =
  'admin|apps|auth|bookmarks|bots|chat|conversations|dnd|emoji|files|pins|reactions|reminders|search|team|usergroups|users|views';
/** A call on a Web API client (`client`, `state.client`, `startClient`, `client()`), however it is spaced. */
const CALL = new RegExp(`[cC]lient(?:\\(\\))?\\s*\\.\\s*(${FAMILIES})\\s*\\.\\s*([A-Za-z0-9]+)\\s*\\(`, 'g');
const API_CALL = /\.apiCall\s*\(\s*['"`]([\w.]+)['"`]/g;
/** Methods the client calls for one the code calls (files.uploadV2), or the Socket Mode client itself. */
const CALLED_FOR_US: Record<string, string> = {
  'files.getUploadURLExternal': 'files.uploadV2',
  'files.completeUploadExternal': 'files.uploadV2',
  'apps.connections.open': 'Socket Mode',
};
/** Every Web API method the Slack adapter's source calls, by file. */
async function methodsInSource(): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const files = (await readdir(SLACK_SOURCE, { recursive: true })).filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const text = await readFile(path.join(SLACK_SOURCE, file), 'utf8');
    const methods = [
      ...[...text.matchAll(CALL)].map((match) => `${match[1]}.${match[2]}`),
      ...[...text.matchAll(API_CALL)].map((match) => match[1] ?? ''),
    ];
    for (const method of methods) found.set(method, [...(found.get(method) ?? []), file]);
  }
  return found;
}

const manifestOf = (options: Partial<SlackManifestOptions> = {}) =>
  createSlackManifest({ mode: 'socket', name: 'Switchboard', command: '/switchboard', ...options });

describe('the Slack app manifest', () => {
  it('grants the scopes of every Web API method the Slack adapter calls', async () => {
    const found = await methodsInSource();
    // The scan finds calls however they are written (`client.reactions\n  .add(`), so it is not vacuous.
    expect([...found.keys()]).toEqual(
      expect.arrayContaining([
        'auth.test',
        'chat.postMessage',
        'chat.update',
        'conversations.open',
        'reactions.add',
      ]),
    );
    const granted = new Set(manifestOf().oauth_config.scopes.bot);
    for (const [method, files] of found) {
      const scopes = SLACK_METHOD_SCOPES[method];
      expect(scopes, `${method} (called in ${files.join(', ')}) is not in slack-scopes.ts`).toBeDefined();
      for (const scope of scopes ?? []) expect(granted, `${method} needs ${scope}`).toContain(scope);
    }
  });

  it('asks only for the scopes of methods the code calls', async () => {
    const found = await methodsInSource();
    for (const method of Object.keys(SLACK_METHOD_SCOPES)) {
      const caller = CALLED_FOR_US[method];
      const called =
        found.has(method) || (caller !== undefined && (found.has(caller) || caller === 'Socket Mode'));
      expect(
        called,
        `${method} is in slack-scopes.ts but no code in src/surfaces/channels/slack calls it`,
      ).toBe(true);
    }
  });

  it('subscribes to the events the adapter hears, with their scopes', async () => {
    const manifest = manifestOf();
    expect(manifest.settings.event_subscriptions).toEqual({ bot_events: Object.keys(SLACK_BOT_EVENTS) });
    const listeners = await readFile(path.join(SLACK_SOURCE, 'slack-receive.ts'), 'utf8');
    expect(listeners).toMatch(/app\.event\(\s*'app_mention'/);
    expect(listeners).toMatch(/app\.message\(|app\.event\(\s*'message'/);
    for (const scope of Object.values(SLACK_BOT_EVENTS).flat())
      expect(manifest.oauth_config.scopes.bot).toContain(scope);
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(['commands', 'files:read', 'files:write']),
    );
  });

  it("is a manifest as @slack/web-api types it (apps.manifest.validate's argument)", () => {
    // Checked by tsc: a misspelt or mistyped field of a known section does not compile.
    const typed: AppsManifestValidateArguments['manifest'] = manifestOf({
      mode: 'http',
      url: 'https://gw.example.org',
    });
    expect(typed.display_information.name).toBe('Switchboard');
  });

  it('uses Socket Mode without request URLs, or HTTP mode with /slack/events for all three', () => {
    const socket = manifestOf();
    expect(socket.settings.socket_mode_enabled).toBe(true);
    expect(socket.settings.interactivity).toEqual({ is_enabled: true });
    expect(socket.features.slash_commands).toEqual([expect.not.objectContaining({ url: expect.anything() })]);
    const http = manifestOf({ mode: 'http', url: 'https://gw.example.org/', command: '/ops', name: 'Ops' });
    const url = 'https://gw.example.org/slack/events';
    expect(http.settings.socket_mode_enabled).toBe(false);
    expect(http.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(http.settings.event_subscriptions).toMatchObject({ request_url: url });
    expect(http.features.slash_commands).toEqual([expect.objectContaining({ command: '/ops', url })]);
    expect(http.features.bot_user).toMatchObject({ display_name: 'Ops' });
  });
});
