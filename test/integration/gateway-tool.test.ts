import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/base/config/index.js';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * The owner-only gateway tool and the owner commands, end to end: web chat → the tool loop →
 * a fake model that calls `gateway` → the config file on disk → the in-process restart → the
 * note posted back into the same web chat session.
 */

const API_KEY = 'sk-gateway-test-secret-0001';
const cleanups = cleanupAfterEach();

async function setup(
  config: Record<string, unknown> = {},
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: API_KEY } },
      agents: { main: { model: 'fake' } },
      // The tool itself is under test here; the approval of its calls in approvals*.test.ts.
      approvals: { tools: { gateway: 'auto' } },
      ...config,
    },
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

/** The JSON result of the most recent gateway tool call in a model request. */
function lastToolResult(request: FakeRequest): any {
  const tool = request.body.messages.filter((message: any) => message.role === 'tool').at(-1);
  return JSON.parse(tool.content);
}

const call = (args: Record<string, unknown>) => ({ toolCalls: [{ name: 'gateway', arguments: args }] });

async function waitForRestarts(gateway: TestGateway, count: number): Promise<void> {
  // `loaded` is set again once the restarted gateway serves.
  await expect
    .poll(() => gateway.host.restarts === count && gateway.host.loaded !== undefined, { timeout: 15_000 })
    .toBe(true);
}

describe('the gateway tool', () => {
  it('reads the config, patches it with the hash and a note, restarts, and posts the note back', async () => {
    const { gateway, model } = await setup();
    const before = await readFile(gateway.configPath, 'utf8');
    model.push(call({ action: 'config.get' }));
    model.push((request) => {
      const { result } = lastToolResult(request);
      return call({
        action: 'config.patch',
        raw: '{ agents: { main: { displayName: "Renamed Bot" } } }',
        baseHash: result.hash,
        note: 'Renamed the agent to Renamed Bot.',
        restartDelayMs: 0,
      });
    });
    model.push((request) => ({
      text: `Patched: ${JSON.stringify(lastToolResult(request).result.changedPaths)}`,
    }));
    const response = await gateway.send('please rename the agent');
    expect(response.body.replies.at(-1).text).toBe('Patched: ["agents.main.displayName"]');

    // config.get showed the file with the secret replaced, and its hash.
    const snapshot = lastToolResult(model.received[1] as FakeRequest);
    expect(snapshot.ok).toBe(true);
    expect(snapshot.result.config.models.fake.apiKey).toBe(REDACTED);
    expect(JSON.stringify(model.requests)).not.toContain(API_KEY);

    await waitForRestarts(gateway, 1);
    const after = await readFile(gateway.configPath, 'utf8');
    expect(after.startsWith('// test config\n')).toBe(true);
    expect(after).toContain('"displayName": "Renamed Bot"');
    expect(after).not.toBe(before);
    expect(gateway.host.loaded?.config.agents.main?.displayName).toBe('Renamed Bot');

    const events = await openEvents(gateway, 'local');
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain('Gateway restarted (config-patch): Renamed the agent to Renamed Bot.');
    const transcript = await gateway.request('GET', `/api/sessions/${response.body.sessionKey}/transcript`);
    expect(transcript.body.entries.at(-1)).toMatchObject({
      role: 'system',
      text: 'Gateway restarted (config-patch): Renamed the agent to Renamed Bot.',
    });
    const audit = await readFile(path.join(gateway.dir, 'data/config-audit.jsonl'), 'utf8');
    expect(JSON.parse(audit.trim())).toMatchObject({
      actor: 'webchat:local',
      via: 'tool',
      action: 'config.patch',
      changedPaths: ['agents.main.displayName'],
    });
  });

  it('refuses a stale baseHash with the exact message, and a second patch made with the same hash', async () => {
    const { gateway, model } = await setup();
    model.push(
      call({ action: 'config.patch', raw: '{"agents":{"main":{"systemPrompt":"warn"}}}', baseHash: 'stale' }),
    );
    model.push({ text: 'ok' });
    await gateway.send('patch with an old hash');
    expect(lastToolResult(model.received[1] as FakeRequest)).toEqual({
      ok: false,
      error: 'config changed since last load; re-run config.get and retry',
    });

    model.push(call({ action: 'config.get' }));
    model.push((request) => {
      const hash = lastToolResult(request).result.hash;
      const patch = (level: string) => ({
        name: 'gateway',
        arguments: {
          action: 'config.patch',
          raw: JSON.stringify({ agents: { main: { systemPrompt: level } } }),
          baseHash: hash,
          restartDelayMs: 60000,
        },
      });
      return { toolCalls: [patch('warn'), patch('debug')] };
    });
    model.push({ text: 'done' });
    await gateway.send('two patches at once');
    const results = model.received[4]?.body.messages
      .filter((message: any) => message.role === 'tool')
      .slice(-2);
    const outcomes = results.map((message: any) => JSON.parse(message.content));
    expect(outcomes[0]).toMatchObject({ ok: true, result: { changed: true } });
    expect(outcomes[1]).toEqual({
      ok: false,
      error: 'config changed since last load; re-run config.get and retry',
    });
    expect(await readFile(gateway.configPath, 'utf8')).toContain('"systemPrompt": "warn"');
  });

  it('refuses an invalid patch naming the path and leaves the file alone; a no-op patch writes nothing', async () => {
    const { gateway, model } = await setup();
    const before = await readFile(gateway.configPath, 'utf8');
    const modified = (await stat(gateway.configPath)).mtimeMs;
    model.push(call({ action: 'config.get' }));
    model.push((request) => {
      const hash = lastToolResult(request).result.hash;
      return {
        toolCalls: [
          {
            name: 'gateway',
            arguments: { action: 'config.patch', raw: '{"http":{"port":"eighty"}}', baseHash: hash },
          },
          {
            name: 'gateway',
            arguments: {
              action: 'config.patch',
              raw: '{"agents":{"main":{"colour":"red"}}}',
              baseHash: hash,
            },
          },
          {
            name: 'gateway',
            arguments: {
              action: 'config.patch',
              raw: '{"models":{"fake":{"temperature":9}}}',
              baseHash: hash,
            },
          },
          {
            name: 'gateway',
            arguments: {
              action: 'config.patch',
              raw: '{"agents":{"main":{"model":"fake"}}}',
              baseHash: hash,
            },
          },
        ],
      };
    });
    model.push({ text: 'ok' });
    await gateway.send('try some bad patches');
    const outcomes = model.received[2]?.body.messages
      .filter((message: any) => message.role === 'tool')
      .slice(-4)
      .map((message: any) => JSON.parse(message.content));
    expect(outcomes[0]).toMatchObject({ ok: false, error: expect.stringContaining('http') });
    expect(outcomes[1]).toMatchObject({
      ok: false,
      error:
        'agents.main.colour is not a path of the config schema (see config.schema.lookup); nothing was written.',
    });
    expect(outcomes[2]).toMatchObject({
      ok: false,
      error: expect.stringContaining('/models/fake/temperature'),
    });
    expect(outcomes[3]).toMatchObject({ ok: true, result: { changed: false } });
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    expect((await stat(gateway.configPath)).mtimeMs).toBe(modified);
    expect(gateway.logLines.some((line) => line.includes('restart scheduled'))).toBe(false);
    // No edit backup (the directory holds only the last config that reached ready, kept at each start).
    expect(await readdir(path.join(gateway.dir, 'data/config-backups'))).toEqual([
      'gateway.jsonc.last-ready',
    ]);
  });

  it('keeps every secret out of config.get, transcripts, the audit log and the logs; a placeholder keeps its secret', async () => {
    const { gateway, model } = await setup();
    model.push(call({ action: 'config.get' }));
    model.push((request) => {
      const { hash, config } = lastToolResult(request).result;
      // The model sends back a whole config that still holds the placeholders.
      config.agents.main.displayName = 'Keeper';
      return call({
        action: 'config.apply',
        raw: JSON.stringify(config),
        baseHash: hash,
        note: 'applied',
        restartDelayMs: 0,
      });
    });
    model.push({ text: 'applied it' });
    const response = await gateway.send('apply the same config with a new name');
    await waitForRestarts(gateway, 1);
    const file = await readFile(gateway.configPath, 'utf8');
    expect(file).toContain(API_KEY);
    expect(file).toContain(TEST_TOKEN);
    expect(file).not.toContain(REDACTED);
    expect(file).toContain('"displayName": "Keeper"');

    const snapshot = lastToolResult(model.received[1] as FakeRequest).result.config;
    expect(snapshot.http.token).toBe(REDACTED);
    expect(snapshot.models.fake.apiKey).toBe(REDACTED);
    const transcript = await gateway.request('GET', `/api/sessions/${response.body.sessionKey}/transcript`);
    const audit = await readFile(path.join(gateway.dir, 'data/config-audit.jsonl'), 'utf8');
    for (const text of [
      JSON.stringify(model.requests),
      JSON.stringify(transcript.body),
      audit,
      gateway.logLines.join(''),
    ]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(TEST_TOKEN);
    }
  });

  it("is absent from a non-owner's turn and refuses a forced call; it cannot change owners, an owner's /config can", async () => {
    const { gateway, model } = await setup();
    const before = await readFile(gateway.configPath, 'utf8');
    model.push(call({ action: 'config.patch', raw: '{"owners":["webchat:mallory"]}', baseHash: 'x' }));
    model.push({ text: 'no luck' });
    await gateway.send('make me an owner', 'mallory');
    const offered = (model.requests[0].tools ?? []).map((tool: any) => tool.function.name);
    expect(offered).not.toContain('gateway');
    expect(model.requests[1].messages.at(-1).content).toBe(
      'Tool gateway refused: webchat:mallory, role member may not call tool gateway: role member lacks it (roles.member.tools: *).',
    );

    model.push(call({ action: 'config.get' }));
    model.push((request) =>
      call({
        action: 'config.patch',
        raw: '{"owners":["webchat:local","webchat:mallory"]}',
        baseHash: lastToolResult(request).result.hash,
      }),
    );
    model.push({ text: 'refused' });
    await gateway.send('add mallory to the owners');
    expect(lastToolResult(model.received[4] as FakeRequest)).toEqual({
      ok: false,
      error: expect.stringMatching(/^owners cannot be changed through the gateway tool/),
    });
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);

    const denied = await gateway.send('/config patch {"owners":["webchat:mallory"]}', 'mallory');
    expect(denied.body.replies[0].text).toBe(
      '/config refused: webchat:mallory, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
    const done = await gateway.send('/config patch {"owners":["webchat:local","webchat:mallory"]}');
    expect(done.body.replies[0].text).toMatch(/^Changed owners\. Restarting in 2 s/);
    await waitForRestarts(gateway, 1);
    expect(gateway.host.loaded?.config.owners).toEqual(['webchat:local', 'webchat:mallory']);
    expect((await gateway.send('/whoami', 'mallory')).body.replies[0].text).toBe(
      'You are webchat:mallory (owner).',
    );
  });
});

describe('the gateway tool cannot send secrets elsewhere or lose data', () => {
  /** Runs config.get then the edit the model makes from its result; returns the edit's result. */
  async function editThroughModel(
    gateway: TestGateway,
    model: FakeModelServer,
    edit: (snapshot: any) => Record<string, unknown>,
  ): Promise<any> {
    model.push(call({ action: 'config.get' }));
    model.push((request) => call({ restartDelayMs: 60_000, ...edit(lastToolResult(request).result) }));
    model.push({ text: 'done' });
    await gateway.send('change the config');
    return lastToolResult(model.received.at(-1) as FakeRequest);
  }

  it('refuses baseUrl, Slack apiUrl and Discord apiBase before any credential check; /config can', async () => {
    const { gateway, model } = await setup();
    const before = await readFile(gateway.configPath, 'utf8');
    for (const [raw, name] of [
      [{ models: { fake: { baseUrl: 'http://127.0.0.1:9/v1' } } }, 'models.fake.baseUrl'],
      [
        { channels: { slack: { botToken: 'xoxb-1', appToken: 'xapp-1', apiUrl: 'http://127.0.0.1:9/' } } },
        'channels.slack',
      ],
      [{ channels: { discord: { token: 'd-1', apiBase: 'http://127.0.0.1:9' } } }, 'channels.discord'],
    ] as const) {
      const result = await editThroughModel(gateway, model, (snapshot) => ({
        action: 'config.patch',
        raw: JSON.stringify(raw),
        baseHash: snapshot.hash,
      }));
      expect(result).toEqual({
        ok: false,
        error: `${name} cannot be changed through the gateway tool; an owner can change it on the Config page, with /config patch or \`switchboard config patch\`, or in the file (${gateway.configPath})`,
      });
    }
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    const typed = await gateway.send(`/config patch {"models":{"fake":{"baseUrl":"${model.url}/"}}}`);
    expect(typed.body.replies[0].text).toMatch(/^Changed models\.fake\.baseUrl\./);
  });

  it('refuses every path the schema does not mark editable by the model, naming it and how an owner changes it', async () => {
    const { gateway, model } = await setup();
    const before = await readFile(gateway.configPath, 'utf8');
    const workspaceLog = path.join(gateway.dir, 'data/workspaces/main/switchboard.log');
    for (const [raw, name] of [
      [{ tools: { runnerSandbox: 'off' } }, 'tools.runnerSandbox'],
      [{ tools: { web: { allowPrivate: true } } }, 'tools.web.allowPrivate'],
      [{ log: { file: { path: workspaceLog } } }, 'log.file.path'],
      [{ stateDir: path.join(gateway.dir, 'empty-state') }, 'stateDir'],
      [{ budgets: { agents: { main: { tokens: 999_999_999 } } } }, 'budgets.agents.main.tokens'],
      [{ subagents: { maxSpawnDepth: 5 } }, 'subagents.maxSpawnDepth'],
      [{ agents: { main: { tools: ['*', 'shell.*'] } } }, 'agents.main.tools'],
      [{ agentEditable: ['tools'] }, 'agentEditable'],
    ] as const) {
      const result = await editThroughModel(gateway, model, (snapshot) => ({
        action: 'config.patch',
        raw: JSON.stringify(raw),
        baseHash: snapshot.hash,
      }));
      expect(result.ok, name).toBe(false);
      expect(result.error, name).toMatch(new RegExp(`^${name.replace(/\./g, '\\.')} `));
      expect(result.error, name).toContain('an owner can change it on the Config page');
    }
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    // What the schema marks editable still goes through: the agent's prompt and model choice.
    const allowed = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: JSON.stringify({
        agents: { main: { systemPrompt: 'Be brief.' } },
        models: { fake: { model: 'fake-2' } },
      }),
      baseHash: snapshot.hash,
    }));
    expect(allowed).toMatchObject({ ok: true, result: { changed: true } });
  });

  it('an owner extends what the model may edit with agentEditable; secrets and URLs stay protected', async () => {
    const { gateway, model } = await setup({ agentEditable: ['tools.web', 'models.*.baseUrl'] });
    const opened = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: JSON.stringify({ tools: { web: { timeoutMs: 20_000 } } }),
      baseHash: snapshot.hash,
    }));
    expect(opened).toMatchObject({ ok: true, result: { changed: true } });
    const url = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: JSON.stringify({ models: { fake: { baseUrl: 'http://127.0.0.1:9/v1' } } }),
      baseHash: snapshot.hash,
    }));
    expect(url).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^models\.fake\.baseUrl cannot be changed/),
    });
  });

  it('patching the scheduler toolpack entry keeps core and plan', async () => {
    const { gateway, model } = await setup({
      // Not the model's by default: an owner opened it.
      agentEditable: ['tools.toolpacks'],
      tools: {
        toolpacks: [
          'core',
          { path: path.join(process.cwd(), 'toolpacks/scheduler'), id: 'scheduler' },
          { path: path.join(process.cwd(), 'toolpacks/plan'), id: 'plan' },
        ],
      },
    });
    const result = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: JSON.stringify({
        tools: { toolpacks: [{ id: 'plan', path: path.join(process.cwd(), 'toolpacks/plan') }, 'web'] },
      }),
      baseHash: snapshot.hash,
    }));
    expect(result).toMatchObject({ ok: true, result: { changed: true } });
    const written = JSON.parse((await readFile(gateway.configPath, 'utf8')).replace('// test config\n', ''));
    expect(written.tools.toolpacks.map((entry: any) => entry.id ?? entry)).toEqual([
      'core',
      'scheduler',
      'plan',
      'web',
    ]);
  });

  it('refuses a patch that drops array items unless replacePaths lists the path, and says what it removed', async () => {
    const { gateway, model } = await setup({
      agents: { main: { model: 'fake', tools: ['*'] } },
      // Not the model's by default: an owner opened it.
      agentEditable: ['agents.*.tools'],
    });
    const refused = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: '{"agents":{"main":{"tools":["gateway"]}}}',
      baseHash: snapshot.hash,
    }));
    expect(refused).toEqual({
      ok: false,
      error:
        'the edit would remove agents.main.tools[0]; nothing was written. If that is what you want, list each path (or one above it) in replacePaths.',
    });
    const listed = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: '{"agents":{"main":{"tools":["gateway"]}}}',
      baseHash: snapshot.hash,
      replacePaths: ['agents.main.tools'],
    }));
    expect(listed).toMatchObject({
      ok: true,
      result: { changed: true, removedPaths: ['agents.main.tools[0]'] },
    });
    const offered = model.requests[0].tools.find((tool: any) => tool.function.name === 'gateway');
    expect(offered.function.parameters.properties.replacePaths.description).toContain('remove');
  });

  it('with commands.restart=false an edit is written, not restarted, and says a restart is needed', async () => {
    const { gateway, model } = await setup({ commands: { restart: false } });
    const result = await editThroughModel(gateway, model, (snapshot) => ({
      action: 'config.patch',
      raw: '{"agents":{"main":{"displayName":"Quiet"}}}',
      baseHash: snapshot.hash,
    }));
    expect(result).toMatchObject({
      ok: true,
      result: {
        changed: true,
        restart: { scheduled: false, reason: 'Gateway restart is disabled (commands.restart=false).' },
        restartNeeded: true,
      },
    });
    expect(await readFile(gateway.configPath, 'utf8')).toContain('"displayName": "Quiet"');
    const typed = await gateway.send('/config patch {"log":{"level":"error"}}');
    expect(typed.body.replies[0].text).toBe(
      'Changed log. Not restarting: gateway restart is disabled (commands.restart=false); the change applies at the next start.',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gateway.host.restarts).toBe(0);
  });

  it('config.get on a file that does not validate shows only the errors and the hash', async () => {
    const { gateway, model } = await setup();
    const text = await readFile(gateway.configPath, 'utf8');
    const secret = 'xoxb-misspelled-secret-value-42';
    await writeFile(
      gateway.configPath,
      text.replace('"agents"', `"chanels": { "slack": { "botToken": "${secret}" } },\n  "agents"`),
    );
    model.push(call({ action: 'config.get' }));
    model.push({ text: 'seen' });
    const response = await gateway.send('show me the config');
    const result = lastToolResult(model.received[1] as FakeRequest);
    expect(result).toEqual({
      ok: true,
      result: {
        path: gateway.configPath,
        hash: expect.any(String),
        valid: false,
        errors: ['/chanels: unknown key'],
        note: expect.stringContaining('config.apply'),
      },
    });
    const typed = await gateway.send('/config get');
    expect(typed.body.replies[0].text).toContain('/chanels: unknown key');
    const transcript = await gateway.request('GET', `/api/sessions/${response.body.sessionKey}/transcript`);
    for (const seen of [
      JSON.stringify(model.requests),
      JSON.stringify(transcript.body),
      typed.body.replies[0].text,
    ]) {
      expect(seen).not.toContain(secret);
    }
  });
});

describe('restarts from chat', () => {
  it('coalesces five restart requests into one restart', async () => {
    const { gateway, model } = await setup();
    const restart = (index: number) => ({
      name: 'gateway',
      arguments: {
        action: 'restart',
        // Each request is answered only once its note is recorded on disk: on a loaded machine five
        // of them can take longer than a short delay, and a late one would rightly schedule anew.
        delayMs: 2000,
        reason: `request ${index}`,
        note: index === 5 ? 'five in one' : undefined,
      },
    });
    model.push({ toolCalls: [1, 2, 3, 4, 5].map(restart) });
    model.push({ text: 'restarting' });
    await gateway.send('restart five times');
    const outcomes = model.requests[1].messages
      .filter((message: any) => message.role === 'tool')
      .map((message: any) => JSON.parse(message.content).result);
    expect(outcomes.map((outcome: any) => outcome.coalesced)).toEqual([false, true, true, true, true]);
    await waitForRestarts(gateway, 1);
    const events = await openEvents(gateway, 'local');
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toEqual(
        expect.arrayContaining(
          // Every request keeps its note (the reason stands in for a missing one).
          ['request 1', 'request 2', 'request 3', 'request 4', 'five in one'].map(
            (note) => `Gateway restarted (restart): ${note}`,
          ),
        ),
      );
    // Well past the restart delay: still exactly one restart.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(gateway.host.restarts).toBe(1);
  });

  it('refuses restart and /restart when commands.restart is false', async () => {
    const { gateway, model } = await setup({ commands: { restart: false } });
    model.push(call({ action: 'restart', note: 'please' }));
    model.push({ text: 'could not' });
    await gateway.send('restart please');
    expect(lastToolResult(model.received[1] as FakeRequest)).toEqual({
      ok: false,
      error: 'Gateway restart is disabled (commands.restart=false).',
    });
    expect((await gateway.send('/restart now')).body.replies[0].text).toBe(
      'Gateway restart is disabled (commands.restart=false).',
    );
    expect(gateway.host.restarts).toBe(0);
  });

  it('/restart posts its note in the same chat after the restart', async () => {
    const { gateway } = await setup();
    const reply = await gateway.send('/restart back soon', undefined, 'ops-thread');
    expect(reply.body.replies[0].text).toBe('Restarting in 2 s; I will post here when I am back.');
    await waitForRestarts(gateway, 1);
    const events = await openEvents(gateway, 'local');
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data))
      .toContainEqual(
        expect.objectContaining({ text: 'Gateway restarted (restart): back soon', thread: 'ops-thread' }),
      );
    const transcript = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent('agent:main:webchat:direct:local:thread:ops-thread')}/transcript`,
    );
    expect(transcript.body.entries).toEqual([
      expect.objectContaining({ role: 'system', text: 'Gateway restarted (restart): back soon' }),
    ]);
  });

  it('/config get and /config schema answer owners without a model', async () => {
    const { gateway } = await setup();
    const model = (await gateway.send('/config get models.fake')).body.replies[0].text;
    expect(model).toContain(`"apiKey": "${REDACTED}"`);
    expect(model).not.toContain(API_KEY);
    const schema = (await gateway.send('/config schema http.port')).body.replies[0].text;
    expect(schema).toContain('"type": "integer"');
    expect((await gateway.send('/config schema http.prot')).body.replies[0].text).toContain(
      'Unknown config path: http.prot',
    );
    expect((await gateway.send('/config get', 'mallory')).body.replies[0].text).toBe(
      '/config refused: webchat:mallory, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
  });
});
