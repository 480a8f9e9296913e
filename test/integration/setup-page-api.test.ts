import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parse } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { httpWithUsers, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';

// Issue 33 item 1, the control UI's first run: the same steps as `switchboard setup` over the HTTP
// API (`/api/config/setup`), against a real gateway with no model, the fake OpenAI-compatible model
// (which refuses a wrong key), the fake Slack and the fake Discord. A refusal names the field and
// writes nothing; an accepted setup writes data/.env (0600) and a config naming `${NAME}` only,
// restarts the gateway onto it, and no answer or log line carries a secret.

const MODEL_KEY = 'sk-page-good-key-0001';
const SLACK_BOT = 'xoxb-page-bot-token-0001';
const SLACK_APP = 'xapp-page-app-token-0001';
const DISCORD_ID = '912345678901234568';
const DISCORD_TOKEN = `${Buffer.from(DISCORD_ID).toString('base64')}.page.discord-token-0001`;
const ALICE = 'alice-token-0123456789abcdef';
const SECRETS = [MODEL_KEY, SLACK_BOT, SLACK_APP, DISCORD_TOKEN, 'sk-wrong-key'];
const WAIT = { timeout: 30_000, interval: 200 };

let gateway: TestGateway;
let model: FakeModelServer;
let slack: FakeSlack;
let discord: FakeDiscord;
let envFile: string;

beforeAll(async () => {
  model = await startFakeOpenAIServer({
    defaultStep: (request) =>
      request.headers.authorization === `Bearer ${MODEL_KEY}`
        ? { text: 'OK' }
        : { status: 401, errorMessage: 'Incorrect API key provided' },
  });
  slack = await startFakeSlack({ botToken: SLACK_BOT, appToken: SLACK_APP });
  discord = await createFakeDiscord({ token: DISCORD_TOKEN, guilds: [] });
  const port = await freePort();
  gateway = await startTestGateway({
    config: { http: { ...httpWithUsers({ alice: ALICE }), port } },
    envFile: 'data/.env',
  });
  envFile = path.join(gateway.dir, 'data', '.env');
});

afterAll(async () => {
  await gateway?.dispose();
  await Promise.all([model?.close(), slack?.close(), discord?.close()]);
});

const compatible = (apiKey: string) => ({
  kind: 'compatible',
  model: 'fake-model',
  baseUrl: model.url,
  apiKey,
});

async function setupState() {
  const answer = await gateway.request('GET', '/api/config/setup');
  expect(answer.status).toBe(200);
  return answer.body;
}

const configText = () => readFile(gateway.configPath, 'utf8');

describe('the first-run setup over the HTTP API', { timeout: 90_000 }, () => {
  it('says setup is needed while no model is configured, and what the steps need', async () => {
    const me = await gateway.request('GET', '/api/me');
    expect(me.body).toMatchObject({ setupNeeded: true });
    expect(me.body.pages).toContain('setup');
    const state = await setupState();
    expect(state).toMatchObject({
      modelConfigured: false,
      models: [],
      owners: ['webchat:local'],
      operator: 'webchat:local',
      slack: { configured: false },
      discord: { configured: false },
    });
    expect(state.slack.manifest).toContain('socket_mode_enabled: true');
    expect(state.envFile).toBe(envFile);
    expect(state.modelKinds.map((kind: { kind: string }) => kind.kind)).toEqual([
      'openai',
      'anthropic',
      'compatible',
    ]);
  });

  it('is for owners only', async () => {
    const asAlice = await gateway.request('GET', '/api/config/setup', undefined, ALICE);
    expect(asAlice.status).toBe(403);
    const post = await gateway.request(
      'POST',
      '/api/config/setup',
      { baseHash: 'x', model: compatible(MODEL_KEY), owners: [] },
      ALICE,
    );
    expect(post.status).toBe(403);
    expect((await gateway.request('GET', '/api/me', undefined, ALICE)).body.pages).not.toContain('setup');
  });

  it('refuses a wrong model key or Slack token naming the field, and writes nothing', async () => {
    const before = await configText();
    const { hash } = await setupState();
    const wrongKey = await gateway.request('POST', '/api/config/setup', {
      baseHash: hash,
      model: compatible('sk-wrong-key'),
      owners: [],
    });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.field).toBe('model.apiKey');
    expect(wrongKey.body.message).toMatch(/the model did not answer: .*401/);
    const wrongSlack = await gateway.request('POST', '/api/config/setup', {
      baseHash: hash,
      model: compatible(MODEL_KEY),
      slack: { botToken: 'xoxb-wrong', appToken: SLACK_APP, apiUrl: slack.apiUrl },
      owners: [],
    });
    expect(wrongSlack.status).toBe(400);
    expect(wrongSlack.body.field).toBe('slack.botToken');
    expect(wrongSlack.body.message).toMatch(/Slack refused: .*invalid_auth/);
    const badOwner = await gateway.request('POST', '/api/config/setup', {
      baseHash: hash,
      model: compatible(MODEL_KEY),
      owners: ['nobody'],
    });
    expect(badOwner.status).toBe(400);
    expect(badOwner.body.field).toBe('owners');
    await expect(stat(envFile)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await configText()).toBe(before);
    for (const answer of [wrongKey, wrongSlack, badOwner])
      for (const secret of SECRETS) expect(JSON.stringify(answer.body)).not.toContain(secret);
  });

  it('writes the secrets to data/.env (0600) and ${NAME} references to the config, then restarts onto it', async () => {
    const { hash } = await setupState();
    const done = await gateway.request('POST', '/api/config/setup', {
      baseHash: hash,
      model: compatible(MODEL_KEY),
      slack: { botToken: SLACK_BOT, appToken: SLACK_APP, apiUrl: slack.apiUrl },
      owners: ['slack:U0OWNER1'],
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      written: ['MODEL_API_KEY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'],
      envFile,
      restart: { status: 'scheduled' },
    });
    expect(done.body.proofs.map((proof: { step: string }) => proof.step)).toEqual(['model', 'slack']);
    expect(done.body.proofs[0].text).toMatch(/answered: "OK"/);
    for (const secret of SECRETS) expect(JSON.stringify(done.body)).not.toContain(secret);

    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect(parseEnv(await readFile(envFile, 'utf8'))).toEqual({
      MODEL_API_KEY: MODEL_KEY,
      SLACK_BOT_TOKEN: SLACK_BOT,
      SLACK_APP_TOKEN: SLACK_APP,
    });
    const text = await configText();
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(parse(text)).toMatchObject({
      owners: ['webchat:local', 'slack:U0OWNER1'],
      models: {
        default: { provider: 'openai', model: 'fake-model', baseUrl: model.url, apiKey: '${MODEL_API_KEY}' },
      },
      agents: { main: { model: 'default' } },
      channels: {
        slack: { botToken: '${SLACK_BOT_TOKEN}', appToken: '${SLACK_APP_TOKEN}', apiUrl: slack.apiUrl },
      },
    });

    // The restart reads the env file again: the model answers in the web chat.
    await expect
      .poll(
        async () => (await gateway.request('GET', '/api/me').catch(() => undefined))?.body?.setupNeeded,
        WAIT,
      )
      .toBe(false);
    const reply = await gateway.send('hello');
    expect(reply.status).toBe(200);
    expect(JSON.stringify(reply.body)).toContain('OK');
    for (const secret of SECRETS) expect(gateway.logLines.join('\n')).not.toContain(secret);
  });

  it('runs again to add Discord, keeping the model and Slack', async () => {
    const state = await setupState();
    expect(state).toMatchObject({
      modelConfigured: true,
      slack: { configured: true },
      owners: ['webchat:local', 'slack:U0OWNER1'],
    });
    expect(state.models).toEqual([expect.objectContaining({ name: 'default' })]);
    expect(state.secretsSet).toEqual(
      expect.arrayContaining(['MODEL_API_KEY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN']),
    );
    const done = await gateway.request('POST', '/api/config/setup', {
      baseHash: state.hash,
      model: { kind: 'keep' },
      discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase },
      owners: ['slack:U0OWNER1'],
    });
    expect(done.status).toBe(200);
    expect(done.body.written).toEqual(['DISCORD_TOKEN']);
    expect(done.body.invite).toMatch(
      new RegExp(`^https://discord\\.com/oauth2/authorize\\?client_id=${DISCORD_ID}&`),
    );
    expect(JSON.stringify(done.body)).not.toContain(DISCORD_TOKEN);
    expect(parseEnv(await readFile(envFile, 'utf8'))).toMatchObject({
      DISCORD_TOKEN,
      MODEL_API_KEY: MODEL_KEY,
    });
    const text = await configText();
    expect(text).not.toContain(DISCORD_TOKEN);
    expect(parse(text)).toMatchObject({
      models: { default: { apiKey: '${MODEL_API_KEY}' } },
      channels: { slack: { botToken: '${SLACK_BOT_TOKEN}' }, discord: { token: '${DISCORD_TOKEN}' } },
    });
    await expect
      .poll(
        async () =>
          (await gateway.request('GET', '/api/config/setup').catch(() => undefined))?.body?.discord
            ?.configured,
        WAIT,
      )
      .toBe(true);
  });
});
