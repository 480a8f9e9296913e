import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { killRunningChildren, runCli } from '../helpers/process.js';

// `switchboard doctor` as an operator runs it (the built CLI, a real config file) against the fake
// Slack and Discord: it names the bot, or the config field that was refused, and never the token.

const SLACK_BOT_TOKEN = 'xoxb-doctor-right-0123';
const SLACK_APP_TOKEN = 'xapp-doctor-right-4567';
const DISCORD_TOKEN = 'discord-doctor-right-89ab';

let dir: string;
let slack: FakeSlack;
let discord: FakeDiscord;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-doctor-channels-');
  slack = await startFakeSlack({ botToken: SLACK_BOT_TOKEN, appToken: SLACK_APP_TOKEN });
  discord = await createFakeDiscord({ token: DISCORD_TOKEN, guilds: [] });
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await slack?.close();
  await discord?.close();
  await removeDir(dir);
});

/** Runs `switchboard doctor` on a config with these channels; `output` is stdout and stderr together. */
async function doctor(name: string, channels: Record<string, unknown>) {
  const file = path.join(dir, `${name}.jsonc`);
  const config = {
    stateDir: path.join(dir, `${name}-state`),
    http: { port: 8787, token: 'doctor-test-token-0123456789' },
    channels,
  };
  await writeFile(file, `// doctor channels test\n${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  const result = await runCli(['doctor', '--config', file], { timeoutMs: 30_000 });
  return { ...result, output: `${result.stdout}\n${result.stderr}` };
}

describe('switchboard doctor: Slack', () => {
  it('names the bot and the team when both Socket Mode tokens are accepted', async () => {
    const result = await doctor('slack-good', {
      slack: { botToken: SLACK_BOT_TOKEN, appToken: SLACK_APP_TOKEN, apiUrl: slack.apiUrl },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('channels: webchat, slack (socket)\n');
    expect(result.stdout).toContain(
      'slack: ok — bot @switchboard (UBOT) in team T1; socket mode app token accepted\n',
    );
    expect(result.stdout).toMatch(/\nOK\n$/);
    // It asked Slack, with the app token too, but did not connect.
    expect(slack.callsTo('auth.test').length).toBeGreaterThan(0);
    expect(slack.callsTo('apps.connections.open').length).toBeGreaterThan(0);
    expect(slack.sockets).toBe(0);
  }, 40_000);

  it('names channels.slack.botToken and invalid_auth for a wrong bot token, without printing it', async () => {
    const wrongToken = 'xoxb-doctor-wrong-cdef';
    const result = await doctor('slack-wrong-bot', {
      slack: { botToken: wrongToken, appToken: SLACK_APP_TOKEN, apiUrl: slack.apiUrl },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'slack: channels.slack.botToken was refused by Slack (invalid_auth); check the token\n',
    );
    // The rest of the summary still prints; "OK" does not.
    expect(result.stdout).toContain('channels: webchat, slack (socket)\n');
    expect(result.stdout).not.toContain('OK\n');
    expect(result.output).not.toContain(wrongToken);
    expect(result.output).not.toContain(SLACK_APP_TOKEN);
  }, 40_000);

  it('names channels.slack.appToken when only the app token is wrong', async () => {
    const wrongToken = 'xapp-doctor-wrong-0000';
    const result = await doctor('slack-wrong-app', {
      slack: { botToken: SLACK_BOT_TOKEN, appToken: wrongToken, apiUrl: slack.apiUrl },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'slack: channels.slack.appToken was refused by Slack (invalid_auth); check the token\n',
    );
    expect(result.output).not.toContain(wrongToken);
  }, 40_000);

  it('names the URL it could not reach', async () => {
    const apiUrl = 'http://127.0.0.1:9/api/';
    const result = await doctor('slack-unreachable', {
      slack: { botToken: SLACK_BOT_TOKEN, appToken: SLACK_APP_TOKEN, apiUrl },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`slack: could not reach Slack at ${apiUrl} (`);
    expect(result.stderr).toContain('check channels.slack.apiUrl');
  }, 40_000);
});

describe('switchboard doctor: Discord', () => {
  it('names the bot when the token is accepted', async () => {
    const result = await doctor('discord-good', {
      webchat: { enabled: false },
      discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('channels: discord\n');
    expect(result.stdout).toContain(`discord: ok — bot @switchboard (${discord.botId})\n`);
    expect(discord.unknown).toEqual([]);
  }, 40_000);

  it('names channels.discord.token for a wrong token, without printing it', async () => {
    const wrongToken = 'discord-doctor-wrong-7777';
    const result = await doctor('discord-wrong', {
      discord: { token: wrongToken, apiBase: discord.apiBase },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'discord: channels.discord.token was refused by Discord (401 Unauthorized); check the token\n',
    );
    expect(result.output).not.toContain(wrongToken);
  }, 40_000);

  it('checks both platforms and fails when only one is refused', async () => {
    const result = await doctor('both', {
      slack: { botToken: SLACK_BOT_TOKEN, appToken: SLACK_APP_TOKEN, apiUrl: slack.apiUrl },
      discord: { token: 'discord-doctor-wrong-8888', apiBase: discord.apiBase },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('channels: webchat, slack (socket), discord\n');
    expect(result.stdout).toContain('slack: ok — bot @switchboard (UBOT) in team T1');
    expect(result.stderr).toContain('discord: channels.discord.token was refused by Discord');
  }, 40_000);
});
