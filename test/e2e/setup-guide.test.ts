import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parse } from 'jsonc-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startKeyCheckingOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { childEnvironment, killRunningChildren, runCli, spawnOnTerminal } from '../helpers/process.js';

// Issue 33 item 1: `switchboard setup` as a person runs it, on a real pseudo-terminal (script(1)),
// against the fake OpenAI-compatible model (which refuses a wrong key), the fake Slack and the
// fake Discord (which accept only their tokens). The guide writes config/gateway.jsonc through
// the config editor and the secrets to data/.env (0600); a second run adds Discord.

const MODEL_KEY = 'sk-setup-good-key-0001';
const SLACK_BOT = 'xoxb-setup-bot-token-0001';
const SLACK_APP = 'xapp-setup-app-token-0001';
const DISCORD_ID = '912345678901234567';
const DISCORD_TOKEN = `${Buffer.from(DISCORD_ID).toString('base64')}.setup.discord-token-0001`;

let dir: string;
let model: FakeModelServer;
let slack: FakeSlack;
let discord: FakeDiscord;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-setup-guide-');
  model = await startKeyCheckingOpenAIServer(MODEL_KEY);
  slack = await startFakeSlack({ botToken: SLACK_BOT, appToken: SLACK_APP });
  discord = await createFakeDiscord({ token: DISCORD_TOKEN, guilds: [] });
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await Promise.all([model?.close(), slack?.close(), discord?.close()]);
  if (dir) await removeDir(dir);
});

const fakes = () => ['--slack-api-url', slack.apiUrl, '--discord-api-base', discord.apiBase];

describe('switchboard setup on a terminal', { timeout: 90_000 }, () => {
  it('asks, proves each answer, and writes a config that doctor passes; a second run adds Discord', async () => {
    const workdir = path.join(dir, 'first');
    await mkdir(workdir);
    const terminal = spawnOnTerminal(['setup', ...fakes()], { cwd: workdir, env: childEnvironment() });
    // The model: an OpenAI-compatible server; a wrong key first, refused by the test call.
    let at = await terminal.waitFor(/Which model should answer\?[\s\S]*Number \[1\]: /);
    expect(terminal.output()).toContain('3) An OpenAI-compatible server');
    const answerModel = async (key: string) => {
      terminal.type('3\r');
      at = await terminal.waitFor(/Server address \(base URL\) \[http:\/\/127\.0\.0\.1:11434\/v1\]: /, at);
      terminal.type(`${model.url}\r`);
      at = await terminal.waitFor(/Model id \[llama3\.1\]: /, at);
      terminal.type('fake-model\r');
      at = await terminal.waitFor(/API key, typed hidden \(Enter for none\): /, at);
      terminal.type(`${key}\r`);
    };
    await answerModel('sk-wrong');
    at = await terminal.waitFor(/failed: the model did not answer: .*401[\s\S]*Try again\? \[Y\/n\]: /, at);
    terminal.type('\r');
    at = await terminal.waitFor(/Number \[1\]: /, at);
    await answerModel(MODEL_KEY);
    at = await terminal.waitFor(/ok: openai fake-model at .* answered: "OK"/, at);
    // Slack: the manifest, the two tokens, proved with the fake Slack.
    at = await terminal.waitFor(/Connect Slack\? \[y\/N\]: /, at);
    terminal.type('y\r');
    at = await terminal.waitFor(/Bot token \(xoxb-\.\.\., typed hidden\): /, at);
    expect(terminal.output()).toContain('socket_mode_enabled: true');
    terminal.type(`${SLACK_BOT}\r`);
    at = await terminal.waitFor(/App-level token \(xapp-\.\.\., typed hidden\): /, at);
    terminal.type(`${SLACK_APP}\r`);
    at = await terminal.waitFor(/ok: bot @.* socket mode app token accepted/, at);
    at = await terminal.waitFor(/Connect Discord\? \[y\/N\]: /, at);
    terminal.type('\r');
    at = await terminal.waitFor(
      /webchat:local \(you, signed in with the HTTP token[\s\S]*Other owners \(Enter for none\): /,
      at,
    );
    terminal.type('slack:U0OWNER1, nobody\r');
    at = await terminal.waitFor(/not a sender id .*: nobody/, at);
    terminal.type('slack:U0OWNER1\r');
    expect(await terminal.exitCode).toBe(0);
    const shown = terminal.output();
    expect(shown).toMatch(
      /wrote MODEL_API_KEY, SLACK_BOT_TOKEN, SLACK_APP_TOKEN to .*data\/\.env \(mode 0600\)/,
    );
    expect(shown).toMatch(/wrote .*config\/gateway\.jsonc: /);
    // Typed secrets are not echoed.
    for (const secret of [MODEL_KEY, 'sk-wrong', SLACK_BOT, SLACK_APP]) expect(shown).not.toContain(secret);

    const envFile = path.join(workdir, 'data', '.env');
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect(parseEnv(await readFile(envFile, 'utf8'))).toEqual({
      MODEL_API_KEY: MODEL_KEY,
      SLACK_BOT_TOKEN: SLACK_BOT,
      SLACK_APP_TOKEN: SLACK_APP,
    });
    const configText = await readFile(path.join(workdir, 'config', 'gateway.jsonc'), 'utf8');
    for (const secret of [MODEL_KEY, SLACK_BOT, SLACK_APP]) expect(configText).not.toContain(secret);
    expect(parse(configText)).toMatchObject({
      owners: ['webchat:local', 'slack:U0OWNER1'],
      models: {
        default: { provider: 'openai', model: 'fake-model', baseUrl: model.url, apiKey: '${MODEL_API_KEY}' },
      },
      agents: { main: { model: 'default' } },
      channels: {
        slack: { botToken: '${SLACK_BOT_TOKEN}', appToken: '${SLACK_APP_TOKEN}', apiUrl: slack.apiUrl },
      },
    });
    const doctor = await runCli(['doctor'], { cwd: workdir, env: childEnvironment() });
    expect(doctor.stderr).toBe('');
    expect(doctor.stdout).toMatch(/OK\n$/);

    // Again, to add Discord: the model and Slack are kept as they are.
    const again = spawnOnTerminal(['setup', ...fakes()], { cwd: workdir, env: childEnvironment() });
    at = await again.waitFor(
      /1\) Keep the configured model \(default: openai fake-model at .*\)[\s\S]*Number \[1\]: /,
    );
    again.type('\r');
    at = await again.waitFor(/Slack \(optional\): configured already; set it up again\? \[y\/N\]: /, at);
    again.type('\r');
    at = await again.waitFor(/Connect Discord\? \[y\/N\]: /, at);
    again.type('y\r');
    at = await again.waitFor(/Bot token \(typed hidden\): /, at);
    again.type(`${DISCORD_TOKEN}\r`);
    at = await again.waitFor(/ok: .*switchboard/, at);
    at = await again.waitFor(
      new RegExp(
        `Invite the bot to your server: https://discord\\.com/oauth2/authorize\\?client_id=${DISCORD_ID}&`,
      ),
      at,
    );
    at = await again.waitFor(/Other owners \(Enter keeps these; "-" for none\) \[slack:U0OWNER1\]: /, at);
    again.type('\r');
    expect(await again.exitCode).toBe(0);
    expect(again.output()).not.toContain(DISCORD_TOKEN);
    expect(parseEnv(await readFile(envFile, 'utf8'))).toMatchObject({
      DISCORD_TOKEN,
      SLACK_BOT_TOKEN: SLACK_BOT,
    });
    const after = parse(await readFile(path.join(workdir, 'config', 'gateway.jsonc'), 'utf8'));
    expect(after).toMatchObject({
      owners: ['webchat:local', 'slack:U0OWNER1'],
      models: { default: { apiKey: '${MODEL_API_KEY}' } },
      channels: {
        slack: { botToken: '${SLACK_BOT_TOKEN}' },
        discord: { token: '${DISCORD_TOKEN}', apiBase: discord.apiBase },
      },
    });
  });

  it('--non-interactive takes the answers from flags and the secrets from the environment', async () => {
    const workdir = path.join(dir, 'ci');
    await mkdir(workdir);
    const compatibleModel = [
      'setup',
      '--non-interactive',
      '--model',
      'compatible',
      '--base-url',
      model.url,
      '--model-id',
      'm',
    ];
    const refused = await runCli([...compatibleModel, ...fakes()], {
      cwd: workdir,
      env: childEnvironment({ MODEL_API_KEY: 'sk-wrong' }),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the model did not answer: .*401/);
    const result = await runCli([...compatibleModel, '--slack', '--owner', 'slack:U0CI', ...fakes()], {
      cwd: workdir,
      env: childEnvironment({
        MODEL_API_KEY: MODEL_KEY,
        SLACK_BOT_TOKEN: SLACK_BOT,
        SLACK_APP_TOKEN: SLACK_APP,
      }),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(parse(await readFile(path.join(workdir, 'config', 'gateway.jsonc'), 'utf8'))).toMatchObject({
      owners: ['webchat:local', 'slack:U0CI'],
      channels: { slack: { botToken: '${SLACK_BOT_TOKEN}' } },
    });
    expect((await stat(path.join(workdir, 'data', '.env'))).mode & 0o777).toBe(0o600);
  });
});
