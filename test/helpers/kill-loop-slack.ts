import type { FakeFileHost } from '../fakes/fake-file-host.js';
import { eventCallback, type FakeSlack, postSignedEvent } from '../fakes/fake-slack.js';
import { request } from './process.js';

/**
 * The kill loop's Slack stream (HTTP mode): signed Events API deliveries to `/slack/events`, each a
 * top-level mention with a text of its own, so each opens a thread (a session) of its own; every
 * other one comes with a file on a slow file host (`FILE_DELAY_MS`), so kills land while files
 * download. Acknowledged means Slack's 200; kept means the user entry is in its thread's
 * transcript once, with its file saved, followed by an answer, and a reply was posted to the fake
 * Slack in that thread.
 */

/** How long the file host takes to answer a download: Slack's 200 comes long before. */
export const FILE_DELAY_MS = 400;
export const BOT_TOKEN = 'xoxb-kill-loop';

export const SLACK_SIGNING_SECRET = 'kill-loop-signing-secret-42';
const CHANNEL = 'C1';

export interface SlackAck {
  ts: string;
  text: string;
  /** The name of the file it came with. */
  file?: string;
}

/** The Slack part of the loop's config: HTTP mode against `fake`. */
export function slackChannelConfig(fake: FakeSlack) {
  return {
    mode: 'http',
    botToken: BOT_TOKEN,
    signingSecret: SLACK_SIGNING_SECRET,
    apiUrl: fake.apiUrl,
  };
}

/**
 * Delivers one event named `id` (with a file from `host` when given), and records it in `acks`
 * when it was acknowledged (HTTP 200).
 */
export async function sendSlackEvent(
  url: string,
  id: string,
  acks: SlackAck[],
  host?: FakeFileHost,
): Promise<void> {
  const ts = `${id}.000100`;
  const text = `SLACK k${id}`;
  const file = host === undefined ? undefined : `f${id}.txt`;
  if (host !== undefined && file !== undefined) host.add(file, Buffer.from(`file of ${id}\n`), 'text/plain');
  const event = {
    type: 'message',
    ...(file === undefined ? {} : { subtype: 'file_share' }),
    channel: CHANNEL,
    channel_type: 'channel',
    user: 'U1',
    text: `<@UBOT> ${text}`,
    ts,
    ...(host === undefined || file === undefined
      ? {}
      : { files: [{ name: file, mimetype: 'text/plain', url_private: host.url(file) }] }),
  };
  try {
    const status = await postSignedEvent(
      `${url}/slack/events`,
      eventCallback(event, `Ev${id}`),
      SLACK_SIGNING_SECRET,
    );
    if (status === 200) acks.push({ ts, text, ...(file === undefined ? {} : { file }) });
  } catch {
    // The gateway died (or was not listening yet): not acknowledged.
  }
}

export interface SlackCheck {
  lost: number;
  doubled: number;
  unanswered: number;
  details: string[];
}

/** What became of every acknowledged event. */
export async function checkSlack(
  url: string,
  fake: FakeSlack,
  acks: readonly SlackAck[],
): Promise<SlackCheck> {
  const result: SlackCheck = { lost: 0, doubled: 0, unanswered: 0, details: [] };
  const posted = new Set(fake.callsTo('chat.postMessage').map((call) => call.args.thread_ts));
  for (const ack of acks) {
    const key = `agent:main:slack:channel:${CHANNEL}:thread:${ack.ts}`;
    const answer = await request<{
      entries?: { role: string; text: string; files?: { name: string; path?: string }[] }[];
    }>(url, 'GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
    const entries = answer.status === 200 ? (answer.body.entries ?? []) : [];
    const found = entries.flatMap((entry, index) =>
      entry.role === 'user' && entry.text.includes(ack.text) ? [index] : [],
    );
    if (found.length === 0) {
      result.lost += 1;
      result.details.push(`slack ${ack.text} lost`);
      continue;
    }
    if (found.length > 1) {
      result.doubled += 1;
      result.details.push(`slack ${ack.text} ${found.length} times`);
    }
    const saved = entries[found[0] ?? 0]?.files?.find((file) => file.name === ack.file)?.path;
    if (ack.file !== undefined && saved === undefined) {
      result.lost += 1;
      result.details.push(`slack ${ack.text} kept without its file ${ack.file}`);
    }
    const last = found.at(-1) ?? 0;
    const answered = entries.slice(last + 1).some((entry) => entry.role === 'assistant');
    if (!answered || !posted.has(ack.ts)) {
      result.unanswered += 1;
      // Which half is missing tells a turn never run from a reply never posted.
      const missing = answered
        ? 'answered in the transcript, no reply posted'
        : 'no answer in the transcript';
      const roles = entries.map((entry) => entry.role).join(',');
      result.details.push(`slack ${ack.text} not answered in its thread (${missing}; entries ${roles})`);
    }
  }
  return result;
}
