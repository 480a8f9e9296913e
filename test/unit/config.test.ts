import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  absentConfigFile,
  collectSecretValues,
  findSecretPaths,
  loadConfig,
  parseJsonc,
  REDACTED,
  redactConfig,
  renderConfigJsonSchema,
} from '../../src/base/config/index.js';
import { ConfigError } from '../../src/base/errors/index.js';

const root = path.resolve(import.meta.dirname, '../..');

async function writeConfig(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchboard-config-'));
  const file = path.join(dir, 'gateway.jsonc');
  await writeFile(file, text);
  return file;
}

async function loadError(text: string, environment: NodeJS.ProcessEnv = {}): Promise<ConfigError> {
  const error = await loadConfig({ configPath: await writeConfig(text), environment }).catch(
    (caught) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loading the config', () => {
  it('runs on built-in defaults when the default file is absent, and says so', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'switchboard-empty-'));
    const loaded = await loadConfig({ cwd, environment: {} });
    expect(loaded.origin).toBe('defaults');
    expect(loaded.path).toBeUndefined();
    expect(loaded.hash).toBe(createHash('sha256').update('').digest('hex'));
    expect(loaded.config).toMatchObject({
      stateDir: './data',
      http: { host: '127.0.0.1', port: 8787 },
      owners: ['webchat:local'],
      defaultAgent: 'main',
      agents: { main: {} },
      channels: { webchat: { enabled: true } },
      commands: { restart: true },
    });
    expect(loaded.config.http.token).toBeUndefined();
  });

  it('reads JSONC with comments and hashes the raw text', async () => {
    const text = '// a comment\n{ "http": { "port": 9000, }, /* more */ "owners": ["slack:U1"] }\n';
    const loaded = await loadConfig({ configPath: await writeConfig(text), environment: {} });
    expect(loaded.config.http.port).toBe(9000);
    expect(loaded.config.owners).toEqual(['slack:U1']);
    expect(loaded.hash).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('takes the path from SWITCHBOARD_CONFIG, and --config wins over it', async () => {
    const fromEnvironment = await writeConfig('{ "http": { "port": 1001 } }');
    const fromOption = await writeConfig('{ "http": { "port": 1002 } }');
    const viaEnvironment = await loadConfig({ environment: { SWITCHBOARD_CONFIG: fromEnvironment } });
    expect(viaEnvironment).toMatchObject({ origin: 'environment', path: fromEnvironment });
    const viaOption = await loadConfig({
      configPath: fromOption,
      environment: { SWITCHBOARD_CONFIG: fromEnvironment },
    });
    expect(viaOption.config.http.port).toBe(1002);
  });

  it('refuses an explicit path that does not exist', async () => {
    const error = await loadConfig({ configPath: '/nonexistent/gateway.jsonc', environment: {} }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('/nonexistent/gateway.jsonc');
    expect(error.message).toContain('file not found');
  });

  it('names every wrong JSON path: types, unknown keys at any depth, enums, bad keys', async () => {
    const error = await loadError(
      '{ "http": { "port": "eighty", "prot": 1 }, "log": { "level": "loud" }, "agents": { "Main Agent": {} }, "colour": 1 }',
    );
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining(['/http/port', '/http/prot', '/log/level', '/colour', '/agents/Main Agent']),
    );
    expect(error.issues.find((issue) => issue.path === '/http/prot')?.message).toBe('unknown key');
    expect(error.issues.find((issue) => issue.path === '/log/level')?.message).toContain('"debug"');
    expect(error.message).toContain('/http/port: must be integer');
  });

  it('checks references between sections', async () => {
    const error = await loadError(
      '{ "defaultAgent": "ops", "agents": { "main": { "model": "gpt" } }, "bindings": [{ "agent": "nobody", "match": { "channel": "webchat" } }] }',
    );
    expect(error.issues.map((issue) => issue.path)).toEqual([
      '/defaultAgent',
      '/agents/main/model',
      '/bindings/0/agent',
    ]);
  });

  it('names a budget time zone Intl does not know and a budget of an agent that does not exist', async () => {
    const error = await loadError(
      '{ "budgets": { "timeZone": "Mars/Olympus", "agents": { "ops": { "tokens": 10 } } } }',
    );
    expect(error.issues).toEqual([
      { path: '/budgets/timeZone', message: expect.stringContaining('"Mars/Olympus" is not a time zone') },
      { path: '/budgets/agents/ops', message: 'names agent "ops", which is not in agents' },
    ]);
  });

  it('names the credential each Slack mode needs', async () => {
    const socket = await loadError('{ "channels": { "slack": { "botToken": "xoxb-1" } } }');
    expect(socket.issues).toEqual([
      { path: '/channels/slack/appToken', message: expect.stringContaining('is required in socket mode') },
    ]);
    const http = await loadError('{ "channels": { "slack": { "mode": "http", "botToken": "xoxb-1" } } }');
    expect(http.issues.map((issue) => issue.path)).toEqual(['/channels/slack/signingSecret']);
    const good = await loadConfig({
      configPath: await writeConfig(
        '{ "channels": { "slack": { "botToken": "xoxb-1", "appToken": "xapp-1" } } }',
      ),
      environment: {},
    });
    expect(good.config.channels.slack?.mode).toBe('socket');
  });

  it('names a JSONC syntax error with its line and column', async () => {
    const error = await loadError('{\n  "http": { "port": }\n}');
    expect(error.code).toBe('CONFIG_PARSE');
    expect(error.message).toMatch(/line 2, column \d+/);
  });

  it('substitutes ${NAME} from the environment and keeps $${NAME} literal', async () => {
    const file = await writeConfig(
      '{ "http": { "token": "${TOKEN}" }, "agents": { "main": { "displayName": "$${NOT_ME} ${NAME}" } } }',
    );
    const loaded = await loadConfig({
      configPath: file,
      environment: { TOKEN: 'a-token-long-enough-123', NAME: 'Ops' },
    });
    expect(loaded.config.http.token).toBe('a-token-long-enough-123');
    expect(loaded.config.agents.main?.displayName).toBe('${NOT_ME} Ops');
  });

  it('names a missing environment variable and where it is used', async () => {
    const error = await loadError('{ "http": { "token": "${SWITCHBOARD_TEST_MISSING}" } }');
    expect(error.code).toBe('CONFIG_ENV_MISSING');
    expect(error.issues).toEqual([
      { path: '/http/token', message: 'environment variable SWITCHBOARD_TEST_MISSING is not set' },
    ]);
  });

  it('loads the committed example config', async () => {
    const example = path.join(root, 'config/gateway.example.jsonc');
    const loaded = await loadConfig({ configPath: example, environment: {} });
    expect(loaded.config.agents.main?.displayName).toBe('Main');
    expect(await readFile(example, 'utf8')).toContain('//');
  });
});

describe('the schema', () => {
  it('matches the committed config/gateway.schema.json (run `npm run schema` when this fails)', async () => {
    const committed = await readFile(path.join(root, 'config/gateway.schema.json'), 'utf8');
    expect(committed).toBe(renderConfigJsonSchema());
  });

  it('marks the secret fields, at any depth', () => {
    expect(findSecretPaths()).toEqual(
      expect.arrayContaining([
        ['http', 'token'],
        ['models', '*', 'apiKey'],
      ]),
    );
  });
});

describe('redaction', () => {
  const config = {
    http: { token: 'http-token-value-123456' },
    models: { a: { apiKey: 'sk-first' }, b: { apiKey: 'sk-second' }, c: { model: 'x' } },
  };

  it('replaces every secret with the placeholder and leaves the input alone', () => {
    const redacted = redactConfig(config);
    expect(redacted).toEqual({
      http: { token: REDACTED },
      models: { a: { apiKey: REDACTED }, b: { apiKey: REDACTED }, c: { model: 'x' } },
    });
    expect(config.models.a.apiKey).toBe('sk-first');
  });

  it('collects the secret values for scrubbing', () => {
    expect(collectSecretValues(config).sort()).toEqual(['http-token-value-123456', 'sk-first', 'sk-second']);
  });
});

describe('config text limits', () => {
  it('reads brackets in strings and comments as text, not nesting', () => {
    const brackets = '['.repeat(200);
    const text = `{\n  // ${'{'.repeat(200)}\n  /* ${brackets} */\n  "agents": { "main": { "displayName": "${brackets}" } }\n}`;
    expect(parseJsonc(text, 'gateway.jsonc')).toEqual({ agents: { main: { displayName: brackets } } });
  });

  it('refuses 65 levels, a __proto__ key and 1e309 with the pointer and position', () => {
    const cases: Array<[string, string, string]> = [
      [`{"a": ${'['.repeat(64)}${']'.repeat(64)}}`, `/a${'/0'.repeat(63)}`, 'nested deeper than 64 levels'],
      ['{"agents": {\n  "__proto__": {}}}', '/agents/__proto__', 'the key "__proto__" is not allowed'],
      ['{"x": [1, -1e309]}', '/x/1', 'the number is not finite (-Infinity)'],
    ];
    for (const [text, pointer, message] of cases) {
      let error: unknown;
      try {
        parseJsonc(text, 'gateway.jsonc');
      } catch (thrown) {
        error = thrown;
      }
      expect(error, text).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues, text).toEqual([
        {
          path: pointer,
          message: expect.stringMatching(
            new RegExp(`^${escapeRegExp(message)}.* at line \\d+, column \\d+$`),
          ),
        },
      ]);
      expect((error as ConfigError).message).toContain('gateway.jsonc: invalid config');
    }
    expect(parseJsonc(`{"a": ${'['.repeat(63)}${']'.repeat(63)}}`, 'gateway.jsonc')).toBeTypeOf('object');
  });
});

describe('what an absent config file stands for', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));

  it('names the packaged toolpacks relative to a config file inside the checkout, as a user would', () => {
    expect(absentConfigFile(path.join(root, 'config/gateway.jsonc'))).toEqual({
      tools: {
        toolpacks: [
          'core',
          { path: '../toolpacks/scheduler', id: 'scheduler' },
          { path: '../toolpacks/plan', id: 'plan' },
        ],
      },
    });
    const beside = absentConfigFile(path.join(root, 'gateway.jsonc')) as any;
    expect(beside.tools.toolpacks[1].path).toBe('./toolpacks/scheduler');
  });

  it('names them by their absolute path from a config file elsewhere (an installed package)', () => {
    const elsewhere = absentConfigFile('/etc/switchboard/gateway.jsonc') as any;
    expect(elsewhere.tools.toolpacks[2].path).toBe(path.join(root, 'toolpacks/plan'));
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
