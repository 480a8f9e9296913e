import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayControl } from '../../src/app/gateway-control.js';
import {
  createConfigEditor,
  hashConfigText,
  parseJsonc,
  REDACTED,
  validateConfig,
} from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import {
  BUILTIN_COMMANDS,
  type CommandContext,
  type CommandReply,
} from '../../src/engine/routing/commands/index.js';
import { gatewayTool } from '../../src/engine/tools/gateway-tools/gateway-tool.js';
import type { ApprovalsPort, HeldCommand } from '../../src/engine/tools/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { testToolContext } from '../helpers/tool-context.js';

// The /config command's hold on real files, with the real editor and gateway control: an apply and
// a patch that removes keys are held with their diff and write nothing; the same command confirmed
// writes; any other patch writes at once. The approvals port records what it is asked to hold (the
// approvals core, its codes and /confirm are tested with it).

const SECRET = 'sk-hold-secret-0123456789';
const TEXT = `// hold test config
{
  "commands": { "restart": false },
  "owners": ["webchat:local", "slack:U1"], // two owners
  "models": { "fake": { "provider": "openai", "model": "fake-1", "apiKey": "${SECRET}" } },
  "agents": { "main": { "displayName": "Original", "model": "fake" } }
}
`;

let dir = '';
let file = '';
let held: HeldCommand[] = [];
beforeEach(async () => {
  dir = await makeTempDir('switchboard-hold-');
  file = path.join(dir, 'gateway.jsonc');
  await writeFile(file, TEXT);
  held = [];
});
afterEach(async () => {
  await removeDir(dir);
});

const approvals: ApprovalsPort = {
  check: async () => ({ status: 'approved', by: 'policy' }),
  decide: async () => ({ text: 'not used' }),
  waiting: () => false,
  async hold(command) {
    held.push(command);
    return {
      id: 'held-1',
      text: `Confirm: ${command.summary}\n/confirm K7Q2XD`,
      actions: [{ label: 'Confirm', value: 'confirm:K7Q2XD', style: 'danger' }],
    };
  },
};

/** The real editor and gateway control on the test's file (restarts off). */
function control() {
  const checked = validateConfig({ commands: { restart: false } });
  if (!checked.ok) throw new Error('test config');
  const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
  const editor = createConfigEditor({ path: file, stateDir: path.join(dir, 'data'), environment: {} });
  const unused = () => {
    throw new Error('not used');
  };
  return createGatewayControl({
    config: checked.value,
    editor,
    sessions: { get: unused } as never,
    scheduleRestart: unused,
    logger,
  });
}

/** Runs `/config <args>` as webchat:local would, the real editor and gateway control behind it. */
async function run(args: string, confirmed = false): Promise<CommandReply> {
  const gateway = control();
  const route = { channel: 'webchat', chatType: 'direct', chatId: 'local' } as const;
  const message = { senderId: 'webchat:local', text: `/config ${args}` } as InboundMessage;
  const command = BUILTIN_COMMANDS.find((candidate) => candidate.name === 'config');
  const context = {
    args,
    message,
    sessionKey: 'agent:main:webchat:direct:local',
    route,
    agentId: 'main',
    gateway,
    approvals,
    ...(confirmed ? { confirmed: true } : {}),
  } as unknown as CommandContext;
  return (await command?.run(context)) ?? '';
}

const textOf = (reply: CommandReply) => (typeof reply === 'string' ? reply : reply.text);

describe('/config apply', () => {
  it('is held with its diff (secrets redacted) and a Confirm button, and writes nothing', async () => {
    const reply = await run('apply {"commands": {"restart": false}}');
    expect(reply).toEqual({
      text: expect.stringMatching(/^Confirm: \/config apply replaces the whole config file: /),
      actions: [{ label: 'Confirm', value: 'confirm:K7Q2XD', style: 'danger' }],
    });
    expect(held).toHaveLength(1);
    const [command] = held;
    expect(command).toMatchObject({
      text: `/config apply --from ${hashConfigText(TEXT).slice(0, 12)} {"commands": {"restart": false}}`,
      senderId: 'webchat:local',
      sessionKey: 'agent:main:webchat:direct:local',
      agentId: 'main',
      route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
      summary: '/config apply replaces the whole config file: removes owners, models, agents',
    });
    expect(command?.details).toContain('-  "owners": ["webchat:local", "slack:U1"], // two owners');
    expect(command?.details).toContain(`"apiKey": "${REDACTED}"`);
    expect(command?.details).not.toContain(SECRET);
    expect(await readFile(file, 'utf8')).toBe(TEXT);
    expect(await readdir(dir)).toEqual(['gateway.jsonc']);
  });

  it('is held when it removes nothing too (it replaces the file)', async () => {
    const whole = JSON.parse(TEXT.replace(/\/\/.*$/gm, ''));
    const reply = await run(`apply ${JSON.stringify({ ...whole, log: { level: 'warn' } })}`);
    expect(textOf(reply)).toBe(
      'Confirm: /config apply replaces the whole config file: changes log\n/confirm K7Q2XD',
    );
    expect(held[0]?.details).toContain('+  "log": {');
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });

  it('shows at most 40 lines of a long diff, and says how many more there are', async () => {
    const whole = JSON.parse(TEXT.replace(/\/\/.*$/gm, ''));
    const agents = Object.fromEntries(
      Array.from({ length: 60 }, (_, index) => [
        `agent${index}`,
        { displayName: `Agent ${index}`, model: 'fake' },
      ]),
    );
    await run(`apply ${JSON.stringify({ ...whole, agents: { ...whole.agents, ...agents } })}`);
    const details = held[0]?.details ?? '';
    const lines = details.split('\n');
    expect(lines).toHaveLength(41);
    expect(lines.at(-1)).toMatch(/^… \d+ more lines of the diff not shown$/);
    expect(details.length).toBeLessThan(2100);
  });

  it('confirmed, runs from the hash its diff was made from: refused once the file changed, else written', async () => {
    await run('apply {"commands": {"restart": false}}');
    const again = (held[0]?.text ?? '').replace(/^\/config /, '');
    expect(textOf(await run('patch {"agents": {"main": {"displayName": "Meanwhile"}}}'))).toMatch(
      /^Changed /,
    );
    const changed = await readFile(file, 'utf8');
    expect(textOf(await run(again, true))).toBe(
      'Refused: the config file changed after this edit was planned, so its diff is not what it would write now; nothing was written. Run the command again to see the diff from the file as it is.',
    );
    expect(await readFile(file, 'utf8')).toBe(changed);

    await run('apply {"commands": {"restart": false}}');
    const fresh = (held[1]?.text ?? '').replace(/^\/config /, '');
    expect(textOf(await run(fresh, true))).toMatch(/^Changed owners, models, agents\. Not restarting/);
    expect(parseJsonc(await readFile(file, 'utf8'), file)).toEqual({ commands: { restart: false } });
  });

  it('confirmed, writes and answers as an edit does', async () => {
    const reply = await run('apply {"commands": {"restart": false}}', true);
    expect(textOf(reply)).toMatch(/^Changed owners, models, agents\. Not restarting/);
    expect(held).toEqual([]);
    const written = await readFile(file, 'utf8');
    expect(written.startsWith('// hold test config\n')).toBe(true);
    expect(parseJsonc(written, file)).toEqual({ commands: { restart: false } });
  });

  it('is refused, not held, when the new config is invalid; and says so when nothing changes', async () => {
    expect(textOf(await run('apply {"agents": {"main": {"model": "missing"}}}'))).toMatch(/^Refused: /);
    expect(textOf(await run(`apply ${JSON.stringify(JSON.parse(TEXT.replace(/\/\/.*$/gm, '')))}`))).toBe(
      'Nothing to change: the config already says that.',
    );
    expect(held).toEqual([]);
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });
});

describe('/config patch', () => {
  it('that removes a key or shrinks an array is held; one that only adds or changes writes at once', async () => {
    const shrink = await run('patch {"owners": ["webchat:local"]}');
    expect(textOf(shrink)).toBe(
      'Confirm: /config patch removes keys: changes owners; removes owners[1]\n/confirm K7Q2XD',
    );
    expect(held[0]?.details).toContain('-  "owners": ["webchat:local", "slack:U1"], // two owners');
    expect(held[0]?.details).toContain('+  ], // two owners');
    const removal = await run('patch {"agents": {"main": {"displayName": null}}}');
    expect(textOf(removal)).toContain('removes agents.main.displayName');
    expect(await readFile(file, 'utf8')).toBe(TEXT);

    expect(textOf(await run('patch {"agents": {"main": {"displayName": "Renamed"}}}'))).toMatch(
      /^Changed agents\.main\.displayName\. Not restarting/,
    );
    expect(held).toHaveLength(2);
    expect(textOf(await run('patch {"owners": ["webchat:local"]}', true))).toMatch(/^Changed owners\./);
    const written = await readFile(file, 'utf8');
    expect(written).toContain('], // two owners');
    expect(parseJsonc(written, file)).toMatchObject({
      owners: ['webchat:local'],
      agents: { main: { displayName: 'Renamed' } },
    });
  });
});

describe("the gateway tool's review", () => {
  const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
  const review = (input: Record<string, unknown>) => {
    const base = testToolContext(logger);
    const context = { ...base, services: { ...base.services, gateway: control() } };
    return gatewayTool.review?.(input as never, context);
  };

  it('asks for edits with their diff (secrets redacted), not for reads; it writes nothing', async () => {
    expect(await review({ action: 'config.get' })).toEqual({ risky: false });
    expect(await review({ action: 'config.schema.lookup', path: 'agents' })).toEqual({ risky: false });
    // Restarts are off in this config: the refusal is the answer, nobody is asked to approve it.
    expect(await review({ action: 'restart', reason: 'new model' })).toEqual({
      risky: true,
      answer: { ok: false, error: 'Gateway restart is disabled (commands.restart=false).' },
    });
    const baseHash = hashConfigText(TEXT);
    const patch = await review({
      action: 'config.patch',
      raw: '{"models": {"fake": {"model": "fake-2"}}}',
      baseHash,
    });
    expect(patch?.risky).toBe(true);
    expect(patch?.details).toMatch(/^Changes models\.fake\.model\.\n```diff\n--- gateway\.jsonc \(before\)/);
    expect(patch?.details).toContain(
      `+  "models": { "fake": { "provider": "openai", "model": "fake-2", "apiKey": "${REDACTED}" } },`,
    );
    expect(patch?.details).not.toContain(SECRET);
    // A call that would be refused is answered with its refusal; nobody is asked.
    expect(await review({ action: 'config.apply', raw: '{}', baseHash: 'stale' })).toEqual({
      risky: true,
      answer: { ok: false, error: 'config changed since last load; re-run config.get and retry' },
    });
    // The tool's guard applies to the plan too: owners are not the model's to change.
    const owners = await review({ action: 'config.patch', raw: '{"owners": ["webchat:mallory"]}', baseHash });
    expect((owners?.answer as { error?: string } | undefined)?.error).toMatch(
      /^owners cannot be changed through the gateway tool/,
    );
    expect(await review({ action: 'config.patch', raw: '{}' })).toEqual({
      risky: true,
      answer: { ok: false, error: 'config.patch needs baseHash: call config.get first and pass its hash' },
    });
    expect(await review({ action: 'config.patch', raw: '{}', baseHash })).toEqual({
      risky: true,
      answer: { ok: true, result: { changed: false, hash: baseHash } },
    });
    expect(await readFile(file, 'utf8')).toBe(TEXT);
    expect(await readdir(dir)).toEqual(['gateway.jsonc']);
  });
});
