import path from 'node:path';
import pTimeout from 'p-timeout';
import type { Page } from 'playwright-core';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, type FakeSlackMessage, startFakeSlack } from '../fakes/fake-slack.js';
import { askOnSlack } from './channels.js';
import { portIsFree } from './machine.js';
import { childEnvironment, pollUntil, runCommand, spawnOnTerminal, type TerminalProcess } from './process.js';

/*
 * A newcomer's first hour as a script, one function per step, run in this order on one clone by the
 * test (test/e2e/first-hour.test.ts) and the bench (bench/first-hour.ts), as the README's quick
 * start says: `npx switchboard setup` on a terminal (the fake model, the fake Slack), `npm start` on a
 * terminal, sign in with the link its start line prints, say hello in the web chat (Chromium) and in
 * a Slack thread (real Bolt over Socket Mode), Ctrl-C, `npx pm2 start ecosystem.config.cjs`, then
 * `/readyz`. Each step waits for an outcome (an exit code, a reply, a ready answer), not for words.
 */

export const MODEL_KEY = 'sk-first-hour-key-0001';
export const SLACK_BOT = 'xoxb-first-hour-bot-0001';
export const SLACK_APP = 'xapp-first-hour-app-0001';
/** What the fake model answers everything, when asked with MODEL_KEY. */
export const MODEL_REPLY = 'Hello from the fake model.';
/** The steps' own bound: a loaded 2-core machine takes tens of seconds for some of them. */
const STEP_TIMEOUT_MS = 120_000;

export interface FirstHourFakes {
  /** OpenAI-compatible; refuses any key but MODEL_KEY (so the env file must reach the gateway). */
  model: FakeModelServer;
  /** Accepts only SLACK_BOT and SLACK_APP. */
  slack: FakeSlack;
  close(): Promise<void>;
}

export async function startFirstHourFakes(): Promise<FirstHourFakes> {
  const model = await startFakeOpenAIServer({
    defaultStep: (request) =>
      request.headers.authorization === `Bearer ${MODEL_KEY}`
        ? { text: MODEL_REPLY }
        : { status: 401, errorMessage: 'Incorrect API key provided' },
  });
  const slack = await startFakeSlack({ botToken: SLACK_BOT, appToken: SLACK_APP });
  return { model, slack, close: async () => void (await Promise.all([model.close(), slack.close()])) };
}

/** One clone going through its first hour. */
export interface FirstHour {
  clone: string;
  fakes: FirstHourFakes;
  /**
   * The environment of every command: a private PM2_HOME (no other pm2 daemon is seen or
   * disturbed) and a private npm cache (npx's install of the clone, made on its first use, goes
   * there instead of ~/.npm/_npx).
   */
  env: NodeJS.ProcessEnv;
  /** The HTTP port (a free one: another gateway may hold the default 8787). */
  port: number;
}

export function createFirstHour(options: {
  clone: string;
  fakes: FirstHourFakes;
  scratch: string;
  port: number;
}) {
  const env = childEnvironment({
    PM2_HOME: path.join(options.scratch, 'pm2-home'),
    npm_config_cache: path.join(options.scratch, 'npm-cache'),
  });
  return { clone: options.clone, fakes: options.fakes, env, port: options.port } satisfies FirstHour;
}

/** `npx switchboard …` in the clone, run to its end; rejects on a non-zero exit. */
function npxSwitchboard(hour: FirstHour, args: string[]) {
  return runCommand('npx', ['switchboard', ...args], {
    cwd: hour.clone,
    env: hour.env,
    timeoutMs: STEP_TIMEOUT_MS,
  });
}

/**
 * `npx switchboard setup` on a terminal: an OpenAI-compatible model (the fake), Slack with its two
 * tokens (the fake's), no Discord, no other owner. Resolves with the guide's exit code.
 */
export async function setupOnTerminal(hour: FirstHour): Promise<number | null> {
  const { model, slack } = hour.fakes;
  const terminal = spawnOnTerminal(['setup', '--slack-api-url', slack.apiUrl], {
    cwd: hour.clone,
    env: hour.env,
    command: ['npx', 'switchboard'],
  });
  const answers: [RegExp, string][] = [
    [/Number \[1\]: /, '3'],
    [/base URL.*: /, model.url],
    [/Model id.*: /, 'fake-model'],
    [/API key.*: /, MODEL_KEY],
    [/Connect Slack\?.*: /, 'y'],
    [/Bot token.*: /, SLACK_BOT],
    [/App-level token.*: /, SLACK_APP],
    [/Connect Discord\?.*: /, ''],
    [/Other owners.*: /, ''],
  ];
  let at = 0;
  for (const [prompt, answer] of answers) {
    at = await terminal.waitFor(prompt, at, STEP_TIMEOUT_MS);
    terminal.type(`${answer}\r`);
  }
  return ended(terminal, 'switchboard setup');
}

/** The terminal command's exit code, or an error naming it when it has not ended within the bound. */
function ended(terminal: TerminalProcess, name: string): Promise<number | null> {
  return pTimeout(terminal.exitCode, {
    milliseconds: STEP_TIMEOUT_MS,
    fallback: () => {
      const shown = JSON.stringify(terminal.output().slice(-600));
      throw new Error(`${name} did not end within ${STEP_TIMEOUT_MS / 1000} s; the terminal shows: ${shown}`);
    },
  });
}

/** `npx switchboard config patch` giving the gateway this hour's port. */
export async function choosePort(hour: FirstHour): Promise<void> {
  await npxSwitchboard(hour, ['config', 'patch', JSON.stringify({ http: { port: hour.port } })]);
}

/** `npm start` on a terminal; resolves with the sign-in link its start line prints. */
export async function npmStart(hour: FirstHour): Promise<{ terminal: TerminalProcess; signIn: string }> {
  const terminal = spawnOnTerminal([], { cwd: hour.clone, env: hour.env, command: ['npm', 'start'] });
  const link = new RegExp(`http://127\\.0\\.0\\.1:${hour.port}/\\?token=[\\w%.~-]+`);
  await terminal.waitFor(link, 0, STEP_TIMEOUT_MS);
  return { terminal, signIn: link.exec(terminal.output())?.[0] ?? '' };
}

/** Opens the sign-in link in `page`, says hello in the web chat and resolves with the reply shown. */
export async function helloInWebChat(page: Page, signIn: string): Promise<string> {
  await page.goto(signIn);
  const composer = page.getByLabel('Message', { exact: true });
  await composer.fill('hello', { timeout: STEP_TIMEOUT_MS });
  await composer.press('Enter');
  const reply = page.locator('#log .message.agent').filter({ hasText: MODEL_REPLY });
  await reply.first().waitFor({ timeout: STEP_TIMEOUT_MS });
  return (await reply.first().textContent()) ?? '';
}

/** Mentions the bot in a new thread of a channel; resolves with the gateway's reply in that thread. */
export async function helloInSlack(hour: FirstHour): Promise<FakeSlackMessage> {
  const { slack } = hour.fakes;
  const thread = '1700000001.000100';
  await askOnSlack(slack, thread, 'hello', STEP_TIMEOUT_MS);
  // The first post may be a placeholder the reply then replaces.
  return slack.waitForMessage(
    (message) => message.threadTs === thread && message.text.includes(MODEL_REPLY),
    STEP_TIMEOUT_MS,
  );
}

/**
 * Ctrl-C on `npm start`'s terminal; resolves with its exit code once it has ended and the port is
 * free (so what answers on it next is the gateway pm2 starts, not this one).
 */
export async function interrupt(hour: FirstHour, terminal: TerminalProcess): Promise<number | null> {
  terminal.type('\x03');
  const code = await ended(terminal, 'npm start (after Ctrl-C)');
  await pollUntil(`port ${hour.port} free after Ctrl-C`, () => portIsFree(hour.port), {
    timeoutMs: STEP_TIMEOUT_MS,
  });
  return code;
}

/** `npx pm2 …` in the clone with this hour's PM2_HOME. */
export function pm2(hour: FirstHour, ...args: string[]) {
  return runCommand('npx', ['pm2', ...args], { cwd: hour.clone, env: hour.env, timeoutMs: STEP_TIMEOUT_MS });
}

/** `npx pm2 start ecosystem.config.cjs`, as the README says. */
export async function pm2Start(hour: FirstHour): Promise<void> {
  await pm2(hour, 'start', 'ecosystem.config.cjs');
}

/** What `/readyz` answers once it answers 200. */
export async function waitReady(hour: FirstHour): Promise<{ ready: boolean; reasons: unknown[] }> {
  return pollUntil(
    `GET /readyz 200 on port ${hour.port}`,
    async () => {
      const response = await fetch(`http://127.0.0.1:${hour.port}/readyz`);
      return response.status === 200
        ? ((await response.json()) as { ready: boolean; reasons: unknown[] })
        : undefined;
    },
    { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 100 },
  );
}
