import { appendFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BACKUPS_KEPT,
  createConfigEditor,
  hashConfigText,
  parseJsonc,
  REDACTED,
} from '../../src/base/config/index.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { pollUntil } from '../helpers/process.js';
import { openEvents } from '../helpers/webchat-events.js';

// The owner's safety net on a real gateway and real files: /config history lists the audit log,
// /config diff shows one change (secrets redacted), /config undo writes back the file before it.

const SECRET = 'sk-safety-secret-0123456789';

/** A config with comments and a literal secret, one also pasted into a comment. */
function configText(dir: string, restart: boolean): string {
  return `// Safety net test config: this comment must survive an undo.
{
  "stateDir": ${JSON.stringify(path.join(dir, 'data'))},
  "http": { "port": 0, "token": "${TEST_TOKEN}" },
  "commands": { "restart": ${restart} }, // restarts ${restart ? 'on' : 'off'}
  "models": {
    // the key was ${SECRET} (a comment an owner should not have written)
    "fake": { "provider": "openai", "model": "fake-1", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "${SECRET}" }
  },
  "agents": {
    "main": { "displayName": "Original", "model": "fake", "systemPromptFile": "prompt.md" } // the only agent
  }
}
`;
}

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

/** A gateway whose file is `configText` (written after the start: the helper writes its own). */
async function start(restart: boolean): Promise<{ gateway: TestGateway; original: string }> {
  const dir = await makeTempDir('switchboard-safety-');
  await writeFile(path.join(dir, 'prompt.md'), 'You are the test agent.\n');
  const started = await startTestGateway({
    dir,
    config: {
      commands: { restart },
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9/v1', apiKey: SECRET },
      },
      agents: { main: { displayName: 'Original', model: 'fake', systemPromptFile: 'prompt.md' } },
    },
  });
  gateway = started;
  const original = configText(started.dir, restart);
  await writeFile(started.configPath, original);
  return { gateway: started, original };
}

async function reply(text: string): Promise<string> {
  const sent = await gateway?.send(text);
  expect(sent?.status).toBe(200);
  return sent?.body.replies.at(-1).text as string;
}

async function auditRecords(): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(gateway?.dir ?? '', 'data/config-audit.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('/config history and /config diff', () => {
  it('lists the edits newest first (who, when, paths, via) and shows one as a diff without its secret', async () => {
    await start(false);
    expect(await reply('/config history')).toBe('No config change is recorded yet.');
    expect(await reply('/config patch {"agents":{"main":{"displayName":"First"}}}')).toMatch(
      /^Changed agents\.main\.displayName\. Not restarting/,
    );
    expect(await reply('/config patch {"models":{"fake":{"model":"fake-2"}}}')).toMatch(
      /^Changed models\.fake\.model\./,
    );

    const history = (await reply('/config history')).split('\n');
    expect(history[0]).toBe(
      'Config changes, newest first; /config diff <n> shows one, /config undo <n> restores the file before it:',
    );
    expect(history.slice(1)).toHaveLength(2);
    expect(history[1]).toMatch(
      /^#2 \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ config\.patch by webchat:local via command: models\.fake\.model$/,
    );
    expect(history[2]).toMatch(
      /^#1 .* config\.patch by webchat:local via command: agents\.main\.displayName$/,
    );

    const diff = await reply('/config diff 1');
    expect(diff).toMatch(
      /^#1 .* config\.patch by webchat:local via command: agents\.main\.displayName\n```diff\n/,
    );
    expect(diff).toContain(
      '-    "main": { "displayName": "Original", "model": "fake", "systemPromptFile": "prompt.md" } // the only agent',
    );
    expect(diff).toContain(
      '+    "main": { "displayName": "First", "model": "fake", "systemPromptFile": "prompt.md" } // the only agent',
    );
    expect(diff).not.toContain('fake-2');
    // #2 changes the apiKey's line: its value is replaced, and so is the copy in the comment above.
    const whole = await reply('/config diff 2');
    expect(whole).toContain(
      `+    "fake": { "provider": "openai", "model": "fake-2", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "${REDACTED}" }`,
    );
    expect(whole).toContain('     // the key was [REDACTED] (a comment an owner should not have written)');
    expect(`${diff}${whole}`).not.toContain(SECRET);
    expect(await reply('/config diff')).toBe(whole);
  });

  it('answers a bad or unknown change number clearly and changes nothing', async () => {
    const { original } = await start(false);
    expect(await reply('/config diff 1')).toBe('Refused: no config change is recorded yet');
    expect(await reply('/config undo')).toBe('No config change is recorded yet.');
    await reply('/config patch {"log":{"level":"warn"}}');
    for (const bad of ['0', '-1', 'abc', '1.5', '99999999999']) {
      expect(await reply(`/config diff ${bad}`), bad).toBe(
        'Usage: /config diff [n], where n is a change number from /config history',
      );
      expect(await reply(`/config undo ${bad}`), bad).toBe(
        'Usage: /config undo [n], where n is a change number from /config history',
      );
    }
    expect(await reply('/config undo 7')).toBe(
      'Refused: no config change 7; the changes are numbered up to 1 (see /config history)',
    );
    expect(await auditRecords()).toHaveLength(1);
    expect(await readFile(gateway?.configPath ?? '', 'utf8')).not.toBe(original);
  });
});

describe('/help and the /config usage', () => {
  it('name history, diff and undo', async () => {
    await start(false);
    expect(await reply('/help')).toContain(
      '/config — Show or change the gateway config: get [path], schema <path>, patch <json>, apply <json>, history, diff <n>, undo [n]. (owners)',
    );
    expect(await reply('/config')).toBe(
      'Usage: /config get [path] | /config schema <path> | /config patch <json> | /config apply <json> | /config history | /config diff <n> | /config undo [n]',
    );
  });
});

describe('/config history with a damaged audit log', () => {
  it('skips lines that are not a record and keeps every number on its line', async () => {
    const { gateway: running } = await start(false);
    await reply('/config patch {"agents":{"main":{"displayName":"One"}}}');
    const audit = path.join(running.dir, 'data/config-audit.jsonl');
    await appendFile(audit, 'not json\n{"ts": 1}\n[]\n');
    await reply('/config patch {"agents":{"main":{"displayName":"Two"}}}');
    const history = (await reply('/config history')).split('\n').slice(1);
    expect(history).toEqual([
      expect.stringMatching(/^#5 .* config\.patch by webchat:local via command: agents\.main\.displayName$/),
      expect.stringMatching(/^#1 .* config\.patch by webchat:local via command: agents\.main\.displayName$/),
    ]);
    expect(await reply('/config diff 3')).toBe(
      'Refused: no config change 3: line 3 of config-audit.jsonl is not a change record',
    );
    expect(await reply('/config diff 5')).toContain('+    "main": { "displayName": "Two"');
  });
});

describe('/config undo', () => {
  it('writes back the file before the change, comments kept, audited; restarts and posts the note', async () => {
    const { gateway: running, original } = await start(true);
    expect(await reply('/config patch {"agents":{"main":{"displayName":"Renamed"}}}')).toMatch(
      /^Changed agents\.main\.displayName\. Restarting in/,
    );
    await pollUntil(
      'the first restart',
      () => running.host.restarts === 1 && running.host.loaded !== undefined,
    );
    expect(running.host.loaded?.config.agents.main?.displayName).toBe('Renamed');

    expect(await reply('/config undo')).toMatch(
      /^Restored the file as it was before change #1\. Changed agents\.main\.displayName\. Restarting in/,
    );
    await pollUntil(
      'the second restart',
      () => running.host.restarts === 2 && running.host.loaded !== undefined,
    );
    expect(await readFile(running.configPath, 'utf8')).toBe(original);
    expect(running.host.loaded?.config.agents.main?.displayName).toBe('Original');
    const events = await openEvents(running, 'local');
    await pollUntil('the note', () =>
      events.events.some(
        (event) => event.data.text === 'Gateway restarted (config-undo): /config undo 1 by webchat:local',
      ),
    );
    const [, undo] = await auditRecords();
    expect(undo).toMatchObject({
      actor: 'webchat:local',
      via: 'command',
      action: 'config.undo',
      undoes: 1,
      changedPaths: ['agents.main.displayName'],
      hash: hashConfigText(original),
    });
    expect(JSON.stringify(await auditRecords())).not.toContain(SECRET);
    const history = await reply('/config history');
    expect(history).toMatch(
      /\n#2 .* config\.undo \(undoes #1\) by webchat:local via command: agents\.main\.displayName\n#1 /,
    );
  });

  it('undoing an older change says which later ones go too; a change whose backup is gone is refused', async () => {
    const { original } = await start(false);
    await reply('/config patch {"agents":{"main":{"displayName":"One"}}}');
    await reply('/config patch {"log":{"level":"warn"}}');
    expect(await reply('/config undo 1')).toMatch(
      /^Restored the file as it was before change #1\. This also undoes #2\. Changed /,
    );
    expect(await readFile(gateway?.configPath ?? '', 'utf8')).toBe(original);
    expect(await reply('/config undo 1')).toMatch(
      /^The file is already as it was before change #1\. Nothing to change/,
    );
    for (let index = 0; index < BACKUPS_KEPT; index += 1) {
      await reply(`/config patch {"scheduler":{"tickMs":${1000 + index}}}`);
    }
    // The file before #1 is kept (the undo wrote it again, and #4 backed it up); the one after it
    // (before #2) is gone.
    expect(await reply('/config diff 1')).toMatch(
      /\n\(the file after this change is no longer kept, so its diff cannot be shown\)$/,
    );
    expect(await reply('/config undo 2')).toMatch(
      /^Refused: the file before change 2 is no longer kept \(only the 5 newest backups are, in .*config-backups\)$/,
    );
  });

  it('checks the file it writes back as a start would: one that cannot start is refused, nothing written', async () => {
    const { gateway: running } = await start(false);
    await writeFile(path.join(running.dir, 'other.md'), 'Another prompt.\n');
    await reply('/config patch {"agents":{"main":{"systemPromptFile":"other.md"}}}');
    // The file before change 1 names a prompt file that is gone now: a start would fail on it.
    await rm(path.join(running.dir, 'prompt.md'));
    const before = await readFile(running.configPath, 'utf8');
    const answer = await reply('/config undo 1');
    expect(answer).toMatch(/^Refused: the new config is invalid; nothing was written/);
    expect(answer).toContain('/agents/main/systemPromptFile: ');
    expect(await readFile(running.configPath, 'utf8')).toBe(before);
    expect(await auditRecords()).toHaveLength(1);
  });
});

describe('/config apply {} with the approvals core', () => {
  it('asks for confirmation with the diff; /confirm applies once; /config undo restores the file, comments kept; history lists both', async () => {
    const { gateway: running, original } = await start(false);
    const asked = await running.send('/config apply {}');
    const request = asked.body.replies.at(-1);
    const code = /^Confirm \(([A-Z0-9]+)\): \/config apply --from [0-9a-f]{12} \{\}\n/.exec(
      request.text,
    )?.[1];
    expect(code, request.text).toBeDefined();
    expect(request.text).toContain(
      '/config apply replaces the whole config file: removes stateDir, http, commands, models, agents',
    );
    expect(request.text).toContain('```diff\n--- gateway.jsonc (before)\n+++ gateway.jsonc (after)\n');
    expect(request.text).toContain(`-  "http": { "port": 0, "token": "${REDACTED}" },`);
    expect(request.text).not.toContain(SECRET);
    expect(request.text).not.toContain(TEST_TOKEN);
    expect(request.actions.map((action: { label: string }) => action.label)).toEqual(['Confirm', 'Cancel']);
    expect(await readFile(running.configPath, 'utf8')).toBe(original);
    expect(await reply('/config history')).toBe('No config change is recorded yet.');

    const confirmed = await reply(`/confirm ${code}`);
    expect(confirmed).toMatch(
      /^Confirmed by webchat:local: \/config apply --from [0-9a-f]{12} \{\}\nChanged /,
    );
    expect(confirmed).toContain('Not restarting');
    const applied = await readFile(running.configPath, 'utf8');
    expect(applied.startsWith('// Safety net test config: this comment must survive an undo.\n')).toBe(true);
    expect(parseJsonc(applied, running.configPath)).toEqual({});
    expect(await reply(`/confirm ${code}`)).toMatch(
      /^Already decided\. Confirmed by webchat:local: \/config apply --from [0-9a-f]{12} \{\}$/,
    );
    expect(await readFile(running.configPath, 'utf8')).toBe(applied);

    expect(await reply('/config undo')).toMatch(/^Restored the file as it was before change #1\. Changed /);
    expect(await readFile(running.configPath, 'utf8')).toBe(original);
    const history = (await reply('/config history')).split('\n');
    expect(history.slice(1)).toEqual([
      expect.stringMatching(/^#2 .* config\.undo \(undoes #1\) by webchat:local via command: /),
      expect.stringMatching(
        /^#1 .* config\.apply by webchat:local via command: stateDir, http, commands, models, agents$/,
      ),
    ]);
  });
});

describe('the editor preview', () => {
  let dir = '';
  afterEach(async () => {
    if (dir !== '') await removeDir(dir);
    dir = '';
  });

  it('plans an apply with its diff (comments, secrets redacted) and removals, and writes nothing', async () => {
    dir = await makeTempDir('switchboard-preview-');
    const file = path.join(dir, 'gateway.jsonc');
    const text = configText(dir, false);
    await writeFile(file, text);
    const editor = createConfigEditor({ path: file, stateDir: path.join(dir, 'data'), environment: {} });
    const preview = await editor.preview('config.apply', {
      raw: '{}',
      baseHash: hashConfigText(text),
      actor: 'webchat:local',
      via: 'command',
    });
    expect(preview).toMatchObject({ ok: true, changed: true, previousHash: hashConfigText(text) });
    if (!preview.ok || !preview.changed) throw new Error('expected a change');
    expect(preview.removedPaths).toEqual(['stateDir', 'http', 'commands', 'models', 'agents']);
    expect(preview.diff).toContain(
      ' // Safety net test config: this comment must survive an undo.\n {\n-  "stateDir"',
    );
    expect(preview.diff).toContain(`"apiKey": "${REDACTED}"`);
    expect(preview.diff).toContain('// the key was [REDACTED]');
    expect(preview.diff).not.toContain(SECRET);
    expect(await readFile(file, 'utf8')).toBe(text);
    expect(await readdir(dir)).toEqual(['gateway.jsonc']);

    const same = await editor.preview('config.patch', {
      raw: '{"agents":{"main":{"displayName":"Original"}}}',
      baseHash: hashConfigText(text),
      actor: 'webchat:local',
      via: 'command',
    });
    expect(same).toEqual({ ok: true, changed: false, hash: hashConfigText(text) });
    const stale = await editor.preview('config.apply', {
      raw: '{}',
      baseHash: 'x',
      actor: 'a',
      via: 'command',
    });
    expect(stale).toEqual({
      ok: false,
      error: 'config changed since last load; re-run config.get and retry',
    });
  });
});
