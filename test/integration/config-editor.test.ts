import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ConfigEditor,
  type ConfigEditorOptions,
  type ConfigEditRequest,
  createConfigEditor,
  findSecretPaths,
  findToolProtectedPaths,
  hashConfigText,
  loadConfig,
  REDACTED,
} from '../../src/base/config/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

// The editor on real files: what the file holds after each edit is what an owner will see.

const environment = {
  TEST_HTTP_TOKEN: 'http-token-secret-0123456789',
  TEST_OPENAI_KEY: 'sk-openai-secret-from-env-abcdef',
};
const USER_TOKEN = 'alice-user-token-0123456789';
const LITERAL_KEY = 'sk-literal-local-secret-123456';
const CHANNEL_SECRETS = [
  'xoxb-slack-bot-secret-1',
  'xapp-slack-app-secret-2',
  'slack-signing-secret-3',
  'discord-bot-secret-4',
];
/** An MCP server's header and env values are secrets. */
const MCP_SECRETS = ['Bearer mcp-header-secret-5', 'mcp-env-secret-6'];
const STALE = 'config changed since last load; re-run config.get and retry';

/** A Redis URL with a password: store.url is a secret too. */
const STORE_URL = 'redis://:store-password-0123@127.0.0.1:6390';
/** Every secret field of the schema is set: by `${ENV}` references and by a literal value. */
const CONFIG_TEXT = `// Gateway config for the editor test.
{
  "$schema": "./gateway.schema.json",
  // where state lives
  "stateDir": "./data",
  "http": {
    "host": "127.0.0.1", // keep local
    "port": 8787,
    "token": "\${TEST_HTTP_TOKEN}",
    "users": { "alice": { "token": "${USER_TOKEN}" } }
  },
  "store": { "url": "${STORE_URL}" },
  /* owners block */
  "owners": ["webchat:local"],
  "agents": {
    "main": {
      "displayName": "Main",
      "model": "default",
      "tools": ["*"] // all tools
    }
  },
  "models": {
    // the default model
    "default": { "provider": "openai", "model": "gpt-4o-mini", "apiKey": "\${TEST_OPENAI_KEY}" },
    "local": { "provider": "openai", "model": "llama", "apiKey": "${LITERAL_KEY}" }
  },
  "channels": {
    "slack": {
      "botToken": "${CHANNEL_SECRETS[0]}",
      "appToken": "${CHANNEL_SECRETS[1]}",
      "signingSecret": "${CHANNEL_SECRETS[2]}"
    },
    "discord": { "token": "${CHANNEL_SECRETS[3]}" }
  },
  "mcp": {
    "servers": {
      "remote": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "${MCP_SECRETS[0]}" } },
      "local": { "command": "mcp-server", "env": { "API_KEY": "${MCP_SECRETS[1]}" } }
    }
  },
  "bindings": []
}
`;
const SECRET_TEXTS = [
  ...Object.values(environment),
  USER_TOKEN,
  STORE_URL,
  'store-password-0123',
  LITERAL_KEY,
  ...CHANNEL_SECRETS,
  ...MCP_SECRETS,
  '${TEST_HTTP_TOKEN}',
  '${TEST_OPENAI_KEY}',
];

let dir: string;
let file: string;
let stateDir: string;
let clock: number;

beforeEach(async () => {
  dir = await makeTempDir('switchboard-config-editor-');
  file = path.join(dir, 'config', 'gateway.jsonc');
  stateDir = path.join(dir, 'state');
  clock = Date.parse('2030-01-02T03:04:05.000Z');
});

afterEach(async () => {
  await removeDir(dir);
});

async function writeInitial(text = CONFIG_TEXT): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return hashConfigText(text);
}

function editor(options: Partial<ConfigEditorOptions> = {}): ConfigEditor {
  return createConfigEditor({
    path: file,
    stateDir,
    environment,
    now: () => {
      clock += 1000;
      return new Date(clock);
    },
    ...options,
  });
}

function request(raw: unknown, baseHash: string, extra: Partial<ConfigEditRequest> = {}): ConfigEditRequest {
  return {
    raw: typeof raw === 'string' ? raw : JSON.stringify(raw),
    baseHash,
    actor: 'webchat:local',
    via: 'tool',
    ...extra,
  };
}

/** A snapshot of a file that loads: it holds the config. */
async function validSnapshot(edits: ConfigEditor) {
  const snapshot = await edits.snapshot();
  if (!('config' in snapshot)) throw new Error(`the file does not load: ${snapshot.errors.join('; ')}`);
  return snapshot;
}

async function auditLines(): Promise<string[]> {
  const text = await readFile(path.join(stateDir, 'config-audit.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

async function backups(): Promise<string[]> {
  return (await readdir(path.join(stateDir, 'config-backups')).catch(() => [])).sort();
}

describe('patch', () => {
  it('rewrites only the changed value: comments, formatting and ${ENV} references stay', async () => {
    const hash = await writeInitial();
    const result = await editor().patch(request({ agents: { main: { displayName: 'Primary' } } }, hash));
    const text = await readFile(file, 'utf8');
    expect(text).toBe(CONFIG_TEXT.replace('"displayName": "Main"', '"displayName": "Primary"'));
    expect(result).toEqual({
      ok: true,
      changed: true,
      hash: hashConfigText(text),
      previousHash: hash,
      path: file,
      changedPaths: ['agents.main.displayName'],
      removedPaths: [],
      config: expect.objectContaining({
        agents: { main: expect.objectContaining({ displayName: 'Primary' }) },
      }),
    });
    if (result.ok && result.changed)
      expect(result.config.models.default?.apiKey).toBe(environment.TEST_OPENAI_KEY);
    expect((await loadConfig({ configPath: file, environment })).hash).toBe(hashConfigText(text));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('writes a file holding secrets 0600 even when it was readable by group and others', async () => {
    const hash = await writeInitial();
    await chmod(file, 0o644);
    const result = await editor().patch(request({ agents: { main: { displayName: 'Primary' } } }, hash));
    expect(result).toMatchObject({ ok: true, changed: true });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('adds, replaces and deletes with the file indentation, keeping every comment', async () => {
    const hash = await writeInitial();
    const result = await editor().patch(
      request(
        {
          models: { extra: { provider: 'anthropic', model: 'claude' } },
          agents: { main: { tools: ['gateway', 'subagents'] } },
          http: { host: null },
        },
        hash,
      ),
    );
    expect(result).toMatchObject({
      ok: true,
      changed: true,
      changedPaths: ['http.host', 'agents.main.tools', 'models.extra'],
    });
    const text = await readFile(file, 'utf8');
    for (const comment of [
      '// Gateway config',
      '// where state lives',
      '/* owners block */',
      '// the default model',
    ]) {
      expect(text).toContain(comment);
    }
    expect(text).toContain('    "extra": {\n      "provider": "anthropic",\n      "model": "claude"\n    }');
    expect(text).not.toContain('"host"');
    expect(text).toContain('"${TEST_OPENAI_KEY}"');
    expect(text.endsWith('}\n')).toBe(true);
    const loaded = await loadConfig({ configPath: file, environment });
    expect(loaded.config.agents.main?.tools).toEqual(['gateway', 'subagents']);
    expect(loaded.config.http.host).toBe('127.0.0.1');
  });

  it('accepts JSON5 and refuses raw that is not an object', async () => {
    const hash = await writeInitial();
    const edits = editor();
    expect(await edits.patch(request('[1]', hash))).toEqual({
      ok: false,
      error: 'raw must be a JSON object, not an array',
    });
    expect(await edits.patch(request('{ nope', hash))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^raw is not valid JSON or JSON5: /),
    });
    const result = await edits.patch(request('{ agentLoop: { maxBurst: 20, }, } // JSON5', hash));
    expect(result).toMatchObject({ ok: true, changed: true, changedPaths: ['agentLoop'] });
  });

  it('refuses a stale base hash with the exact message, writing nothing', async () => {
    await writeInitial();
    const result = await editor().patch(request({ http: { port: 9000 } }, hashConfigText('something else')));
    expect(result).toEqual({ ok: false, error: STALE });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
  });

  it('applies exactly one of two concurrent patches made from the same hash', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const results = await Promise.all([
      edits.patch(request({ http: { port: 9001 } }, hash)),
      edits.patch(request({ agents: { main: { displayName: 'Other' } } }, hash)),
    ]);
    expect(results.filter((result) => result.ok && result.changed)).toHaveLength(1);
    expect(results.filter((result) => !result.ok)).toEqual([{ ok: false, error: STALE }]);
    const loaded = await loadConfig({ configPath: file, environment });
    expect(loaded.config.http.port === 9001 || loaded.config.agents.main?.displayName === 'Other').toBe(true);
    expect(loaded.config.http.port === 9001 && loaded.config.agents.main?.displayName === 'Other').toBe(
      false,
    );
    expect(await auditLines()).toHaveLength(1);
  });

  it('refuses as stale an edit another editor (another process) wrote past while it was being checked', async () => {
    const hash = await writeInitial();
    // Two editors of one file have separate queues, as the shell CLI and the gateway do.
    const other = editor();
    let otherResult: unknown;
    const slow = editor({
      dryRun: async () => {
        otherResult = await other.patch(request({ http: { port: 9002 } }, hash, { via: 'cli' }));
        return [];
      },
    });
    const result = await slow.patch(request({ agents: { main: { displayName: 'Slow' } } }, hash));
    expect(otherResult).toMatchObject({ ok: true, changed: true });
    expect(result).toEqual({ ok: false, error: STALE });
    const loaded = await loadConfig({ configPath: file, environment });
    expect([loaded.config.http.port, loaded.config.agents.main?.displayName]).toEqual([9002, 'Main']);
    expect(await auditLines()).toHaveLength(1);
  });

  it('refuses an invalid config naming each JSON path, leaving the file byte-identical', async () => {
    const hash = await writeInitial();
    const before = await stat(file);
    const edits = editor();
    const wrongType = await edits.patch(request({ http: { port: 'eighty' }, log: { colour: true } }, hash));
    expect(wrongType).toEqual({
      ok: false,
      error:
        'the new config is invalid; nothing was written:\n/log/colour: unknown key\n/http/port: must be integer',
    });
    const badReference = await edits.patch(request({ agents: { main: { model: 'missing' } } }, hash));
    expect(badReference).toMatchObject({
      ok: false,
      error: expect.stringContaining('/agents/main/model: names model "missing"'),
    });
    const missingEnvironment = await edits.patch(
      request({ models: { local: { apiKey: '${NOT_SET_ANYWHERE}' } } }, hash),
    );
    expect(missingEnvironment).toMatchObject({
      ok: false,
      error: expect.stringContaining(
        '/models/local/apiKey: environment variable NOT_SET_ANYWHERE is not set',
      ),
    });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect(await backups()).toEqual([]);
    expect(await auditLines()).toEqual([]);
  });

  it('refuses what the dry run finds, writing nothing', async () => {
    const hash = await writeInitial();
    const edits = editor({
      dryRun: async (config, configPath) =>
        config.agents.main?.systemPromptFile
          ? [{ path: '/agents/main/systemPromptFile', message: `not found next to ${configPath}` }]
          : [],
    });
    const result = await edits.patch(request({ agents: { main: { systemPromptFile: 'gone.md' } } }, hash));
    expect(result).toEqual({
      ok: false,
      error: `the new config is invalid; nothing was written:\n/agents/main/systemPromptFile: not found next to ${file}`,
    });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
  });

  it('writes nothing for a patch that changes nothing', async () => {
    const hash = await writeInitial();
    const before = await stat(file);
    const result = await editor().patch(
      request({ http: { port: 8787 }, agents: { main: { tools: ['*'] } } }, hash),
    );
    expect(result).toEqual({ ok: true, changed: false, hash, path: file });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect(await auditLines()).toEqual([]);
    expect(await backups()).toEqual([]);
  });

  it('creates an absent file (and its directory) from the hash of the empty text', async () => {
    const edits = editor();
    expect(await edits.snapshot()).toEqual({ path: file, hash: hashConfigText(''), config: {} });
    const result = await edits.patch(request({ http: { port: 9100 } }, hashConfigText('')));
    expect(result).toMatchObject({ ok: true, changed: true, changedPaths: ['http'] });
    expect(await readFile(file, 'utf8')).toBe('{\n  "http": {\n    "port": 9100\n  }\n}\n');
    expect(await backups()).toEqual([]);
  });

  it('follows the indentation and line ends of the file for inserted values', async () => {
    const hash = await writeInitial('{\r\n\t"log": {\r\n\t\t"level": "info"\r\n\t}\r\n}');
    const result = await editor().patch(request({ gateway: { drainTimeoutMs: 0 } }, hash));
    expect(result).toMatchObject({ ok: true, changed: true, changedPaths: ['gateway'] });
    expect(await readFile(file, 'utf8')).toBe(
      '{\r\n\t"log": {\r\n\t\t"level": "info"\r\n\t},\r\n\t"gateway": {\r\n\t\t"drainTimeoutMs": 0\r\n\t}\r\n}\r\n',
    );
  });

  it('refuses to edit a file whose duplicate keys jsonc-parser cannot edit faithfully', async () => {
    const text = '{ "log": { "level": "info" }, "log": { "level": "warn" } }\n';
    const hash = await writeInitial(text);
    const result = await editor().patch(request({ log: { level: 'debug' } }, hash));
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining(`cannot edit ${file}: `) });
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('returns file system failures as results naming the file', async () => {
    await writeFile(path.join(dir, 'not-a-dir'), '');
    file = path.join(dir, 'not-a-dir', 'gateway.jsonc');
    const result = await editor().patch(request({ http: { port: 9100 } }, hashConfigText('')));
    expect(result).toEqual({ ok: false, error: `cannot read the config file ${file}: ENOTDIR` });
  });
});

describe('apply', () => {
  it('replaces the whole config, removing what the new one leaves out', async () => {
    const hash = await writeInitial();
    const { config } = await validSnapshot(editor());
    const { bindings: _bindings, $schema: _schema, ...rest } = config;
    const result = await editor().apply(request({ ...rest, stateDir: './other' }, hash, { via: 'command' }));
    expect(result).toMatchObject({
      ok: true,
      changed: true,
      changedPaths: ['stateDir', '$schema', 'bindings'],
    });
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('"bindings"');
    expect(text).toContain('// the default model');
  });
});

describe('a file that does not load', () => {
  it('shows only its errors and hash, never its values; includeInvalid (the shell) shows it redacted', async () => {
    const misspelled = 'xoxb-under-a-misspelled-key-77';
    const text = `{ "chanels": { "slack": { "botToken": "${misspelled}" } }, "http": { "port": "x" } }\n`;
    const hash = await writeInitial(text);
    const snapshot = await editor().snapshot();
    expect(snapshot).toEqual({
      path: file,
      hash,
      valid: false,
      errors: ['/chanels: unknown key', '/http/port: must be integer'],
    });
    expect(JSON.stringify(snapshot)).not.toContain(misspelled);
    expect(await editor().snapshot({ includeInvalid: true })).toMatchObject({
      valid: false,
      config: { http: { port: 'x' } },
    });
  });
});

describe('secrets', () => {
  it('the fixture sets every secret field of the schema', () => {
    expect(findSecretPaths().map((secretPath) => secretPath.join('.'))).toEqual([
      'http.token',
      'http.users.*.token',
      'store.url',
      'models.*.apiKey',
      'mcp.servers.*.env.*',
      'mcp.servers.*.headers.*',
      'channels.slack.botToken',
      'channels.slack.appToken',
      'channels.slack.signingSecret',
      'channels.discord.token',
    ]);
  });

  it('leave no value in the snapshot', async () => {
    const hash = await writeInitial();
    const snapshot = await validSnapshot(editor());
    expect(snapshot.hash).toBe(hash);
    expect(snapshot.config).toMatchObject({
      http: { token: REDACTED, users: { alice: { token: REDACTED } } },
      models: { default: { apiKey: REDACTED }, local: { apiKey: REDACTED } },
    });
    const text = JSON.stringify(snapshot);
    for (const secret of SECRET_TEXTS) expect(text).not.toContain(secret);
  });

  it('a snapshot applied back unchanged is a no-op: placeholders are restored', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const { config } = await validSnapshot(edits);
    expect(await edits.apply(request(config, hash))).toEqual({ ok: true, changed: false, hash, path: file });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
  });

  it('a modified snapshot applied back keeps every secret as written', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const { config } = await validSnapshot(edits);
    const modified = structuredClone(config) as any;
    modified.agents.main.displayName = 'Renamed';
    const result = await edits.apply(
      request(modified, hash, { guard: { protectedPaths: findToolProtectedPaths(), agentEditable: [] } }),
    );
    expect(result).toMatchObject({ ok: true, changed: true, changedPaths: ['agents.main.displayName'] });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT.replace('"Main"', '"Renamed"'));
  });

  it('a placeholder with nothing to restore, or at a path that is not secret, is an error', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const newModel = await edits.patch(
      request({ models: { extra: { provider: 'openai', model: 'x', apiKey: REDACTED } } }, hash),
    );
    expect(newModel).toEqual({
      ok: false,
      error:
        '/models/extra/apiKey: the secret placeholder has no value to restore; give the real value or remove the key',
    });
    const notSecret = await edits.patch(request({ agents: { main: { displayName: REDACTED } } }, hash));
    expect(notSecret).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^\/agents\/main\/displayName: the secret placeholder/),
    });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
  });

  it('audit records name paths, never values, and notes are scrubbed', async () => {
    const hash = await writeInitial();
    const newKey = 'sk-brand-new-secret-value-999';
    const result = await editor({ scrub: (text) => text.replaceAll(LITERAL_KEY, '[REDACTED]') }).patch(
      request({ models: { local: { apiKey: newKey } }, http: { port: 9200 } }, hash, {
        actor: 'slack:U1',
        via: 'command',
        note: `rotated ${LITERAL_KEY} to ${newKey}`,
      }),
    );
    expect(result.ok).toBe(true);
    const lines = await auditLines();
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0] ?? '{}');
    expect(record).toEqual({
      ts: '2030-01-02T03:04:06.000Z',
      actor: 'slack:U1',
      via: 'command',
      action: 'config.patch',
      changedPaths: ['http.port', 'models.local.apiKey'],
      previousHash: hash,
      hash: hashConfigText(await readFile(file, 'utf8')),
      note: 'rotated [REDACTED] to [REDACTED]',
    });
    for (const secret of [...SECRET_TEXTS, newKey]) expect(lines[0]).not.toContain(secret);
    expect((await stat(path.join(stateDir, 'config-audit.jsonl'))).mode & 0o777).toBe(0o600);
  });
});

describe('the gateway tool guard (protected paths derived from the schema)', () => {
  // Everything opened to the model (agentEditable `*`): the protected paths stay shut all the same.
  const guard = { protectedPaths: findToolProtectedPaths(), agentEditable: ['*'] };
  const refusal = (name: string) =>
    `${name} cannot be changed through the gateway tool; an owner can change it on the Config page, with /config patch or \`switchboard config patch\`, or in the file (${file})`;

  it('protects owners, http, commands, every secret and every URL a secret is sent to', () => {
    const described = findToolProtectedPaths().map(({ path: at, kind }) => `${at.join('.')} ${kind}`);
    expect(described).toEqual(
      expect.arrayContaining([
        'owners value',
        'http value',
        'commands value',
        'models.*.baseUrl value',
        'models.*.apiKey value',
        'channels.slack presence',
        'channels.slack.botToken value',
        'channels.slack.appToken value',
        'channels.slack.signingSecret value',
        'channels.slack.apiUrl value',
        'channels.discord presence',
        'channels.discord.token value',
        'channels.discord.apiBase value',
        'channels.webchat.enabled value',
        'tools.toolpacks added-code',
        'mcp value',
      ]),
    );
  });

  it('refuses a change at or under one, naming the changed path', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const refused = async (raw: unknown) => edits.patch(request(raw, hash, { guard }));
    expect(await refused({ owners: ['slack:U9'] })).toEqual({ ok: false, error: refusal('owners') });
    expect(await refused({ http: { port: 1 } })).toEqual({ ok: false, error: refusal('http.port') });
    expect(await refused({ commands: { restart: false } })).toEqual({
      ok: false,
      error: refusal('commands'),
    });
    expect(await refused({ http: null })).toEqual({ ok: false, error: refusal('http') });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
  });

  it('refuses every path that decides where a secret goes, and every secret, at any depth', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const refused = async (raw: unknown) => edits.patch(request(raw, hash, { guard }));
    const cases: [unknown, string][] = [
      [{ models: { default: { baseUrl: 'http://evil.example/v1' } } }, 'models.default.baseUrl'],
      [
        { models: { evil: { provider: 'openai', model: 'x', baseUrl: 'http://evil.example' } } },
        'models.evil.baseUrl',
      ],
      [
        { models: { evil: { provider: 'openai', model: 'x', apiKey: '${TEST_OPENAI_KEY}' } } },
        'models.evil.apiKey',
      ],
      [{ models: { local: { apiKey: 'sk-other' } } }, 'models.local.apiKey'],
      [{ channels: { slack: { apiUrl: 'http://evil.example/api/' } } }, 'channels.slack.apiUrl'],
      [{ channels: { discord: { apiBase: 'http://evil.example' } } }, 'channels.discord.apiBase'],
      [{ channels: { discord: { token: 'other' } } }, 'channels.discord.token'],
      [{ channels: { slack: null } }, 'channels.slack'],
      [{ channels: { webchat: { enabled: false } } }, 'channels.webchat.enabled'],
      [{ mcp: { servers: { evil: { command: 'sh', args: ['-c', 'id'] } } } }, 'mcp.servers.evil'],
      [{ mcp: { servers: { remote: { url: 'http://evil.example/mcp' } } } }, 'mcp.servers.remote.url'],
    ];
    for (const [raw, name] of cases) expect(await refused(raw)).toEqual({ ok: false, error: refusal(name) });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
  });

  it('refuses adding a channel, and toolpack entries that add local code or shell', async () => {
    const hash = await writeInitial(
      '{ "tools": { "toolpacks": ["core", { "path": "./packs/scheduler", "id": "scheduler" }] } }\n',
    );
    const edits = editor();
    const refused = async (raw: unknown) => edits.patch(request(raw, hash, { guard }));
    expect(await refused({ channels: { discord: { token: 'x' } } })).toEqual({
      ok: false,
      error: refusal('channels.discord'),
    });
    for (const [raw, name] of [
      [{ tools: { toolpacks: ['shell'] } }, 'tools.toolpacks[2]'],
      [{ tools: { toolpacks: [{ path: '/tmp/evil', id: 'evil' }] } }, 'tools.toolpacks[2]'],
      [{ tools: { toolpacks: [{ id: 'scheduler', path: '/tmp/evil' }] } }, 'tools.toolpacks[1]'],
    ] as const) {
      expect(await refused(raw)).toEqual({ ok: false, error: refusal(name) });
    }
    expect(await refused({ tools: { toolpacks: ['web'] } })).toMatchObject({ ok: true, changed: true });
  });

  it('refuses a new ${ENV} reference anywhere: it would put a secret of the environment in the config', async () => {
    const hash = await writeInitial();
    const result = await editor().patch(
      request({ agents: { main: { systemPrompt: 'the key is ${TEST_OPENAI_KEY}' } } }, hash, { guard }),
    );
    expect(result).toEqual({
      ok: false,
      error: `agents.main.systemPrompt names an environment variable (\${TEST_OPENAI_KEY}), which cannot be done through the gateway tool; an owner can with /config patch or in the file (${file})`,
    });
  });

  it('lets the same changes through without the guard (the /config command and the CLI)', async () => {
    const hash = await writeInitial();
    const result = await editor().patch(
      request(
        { owners: ['webchat:local', 'slack:U9'], models: { default: { baseUrl: 'http://127.0.0.1:1/v1' } } },
        hash,
        { via: 'command' },
      ),
    );
    expect(result).toMatchObject({
      ok: true,
      changed: true,
      changedPaths: ['owners', 'models.default.baseUrl'],
    });
  });
});

describe('removals through the guard need replacePaths', () => {
  const guard = { protectedPaths: findToolProtectedPaths(), agentEditable: ['*'] };
  const advice =
    'nothing was written. If that is what you want, list each path (or one above it) in replacePaths.';

  it('refuses a patch that removes a key or drops an array item, naming each', async () => {
    const hash = await writeInitial();
    const edits = editor();
    const result = await edits.patch(
      request({ agents: { main: { displayName: null, tools: ['gateway'] } } }, hash, { guard }),
    );
    expect(result).toEqual({
      ok: false,
      error: `the edit would remove agents.main.displayName, agents.main.tools[0]; ${advice}`,
    });
    expect(await readFile(file, 'utf8')).toBe(CONFIG_TEXT);
    const listed = await edits.patch(
      request({ agents: { main: { displayName: null, tools: ['gateway'] } } }, hash, {
        guard,
        replacePaths: ['agents.main.displayName', 'agents.main.tools'],
      }),
    );
    expect(listed).toMatchObject({
      ok: true,
      changed: true,
      removedPaths: ['agents.main.displayName', 'agents.main.tools[0]'],
    });
  });

  it('refuses an apply that leaves keys out unless the root is listed', async () => {
    const hash = await writeInitial();
    const { config } = await validSnapshot(editor());
    const { bindings: _bindings, ...rest } = config;
    expect(await editor().apply(request(rest, hash, { guard }))).toEqual({
      ok: false,
      error: `the edit would remove bindings; ${advice}`,
    });
    expect(await editor().apply(request(rest, hash, { guard, replacePaths: [''] }))).toMatchObject({
      ok: true,
      removedPaths: ['bindings'],
    });
  });

  it('replaces an id array whole at a listed path (the only way to remove a toolpack by patch)', async () => {
    const text = '{ "tools": { "toolpacks": ["core", { "path": "./packs/plan", "id": "plan" }] } }\n';
    const hash = await writeInitial(text);
    const result = await editor().patch(
      request({ tools: { toolpacks: ['core'] } }, hash, { guard, replacePaths: ['tools.toolpacks'] }),
    );
    expect(result).toMatchObject({ ok: true, removedPaths: ['tools.toolpacks[1]'] });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ tools: { toolpacks: ['core'] } });
  });
});

describe('backups', () => {
  it('keeps the previous text of each write, the 5 newest, mode 0600', async () => {
    let hash = await writeInitial();
    const edits = editor();
    const texts: string[] = [CONFIG_TEXT];
    for (let port = 9001; port <= 9007; port += 1) {
      const result = await edits.patch(request({ http: { port } }, hash));
      if (!result.ok) throw new Error(result.error);
      hash = result.hash;
      texts.push(await readFile(file, 'utf8'));
    }
    const names = await backups();
    expect(names).toHaveLength(5);
    for (const name of names) expect(name).toMatch(/^gateway\.jsonc\.2030-01-02T03-04-\d\d\.000Z\.bak$/);
    const kept = await Promise.all(
      names.map((name) => readFile(path.join(stateDir, 'config-backups', name), 'utf8')),
    );
    expect(kept).toEqual(texts.slice(2, 7));
    const mode = (await stat(path.join(stateDir, 'config-backups', names[0] ?? ''))).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(await auditLines()).toHaveLength(7);
  });

  it('does not overwrite a backup made in the same millisecond', async () => {
    let hash = await writeInitial();
    const edits = editor({ now: () => new Date('2030-01-02T03:04:05.000Z') });
    for (const port of [9001, 9002]) {
      const result = await edits.patch(request({ http: { port } }, hash));
      if (!result.ok) throw new Error(result.error);
      hash = result.hash;
    }
    expect(await backups()).toEqual([
      'gateway.jsonc.2030-01-02T03-04-05.000Z.1.bak',
      'gateway.jsonc.2030-01-02T03-04-05.000Z.bak',
    ]);
  });
});

describe('an absent file with built-in defaults', () => {
  it('writes what the absent file stands for into the new file, so the first edit loses nothing', async () => {
    const absentFile = { tools: { toolpacks: ['core'] } };
    const edits = editor({ absentFile });
    const snapshot = await validSnapshot(edits);
    expect(snapshot.config).toEqual(absentFile);
    const result = await edits.patch(request({ log: { level: 'debug' } }, hashConfigText('')));
    expect(result).toMatchObject({ ok: true, changed: true });
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written).toEqual({ tools: { toolpacks: ['core'] }, log: { level: 'debug' } });
  });
});
