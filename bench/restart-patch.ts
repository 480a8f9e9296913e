import type { FakeRequest, FakeStep } from '../test/fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../test/helpers/gateway.js';
import { epochNow, parseMilestones, timeOf } from './restart-stats.js';

/**
 * config.patch → restart note, in-process: the owner (`local`) sends a web chat message, the fake
 * model calls `gateway` config.get, then config.patch (a new displayName, a note, restartDelayMs 0),
 * then answers. t0 is when the fake model answers with the config.patch call; the end is when an
 * event stream subscribed to the restarted gateway shows the note.
 */

export const NOTE_PREFIX = 'Gateway restarted (config-patch): ';
const TIMEOUT_MS = 15_000;

/** Milestones in ms after t0; log-based ones use the gateway's pino `time` (1 ms resolution). */
export interface PatchIteration {
  milestones: Record<string, number>;
  failure: string | undefined;
  store: string | undefined;
}

/** Log messages (prefixes) shown as milestones, with the label the table uses. */
export const LOG_MILESTONES: readonly (readonly [string, string])[] = [
  ['restart scheduled', 'tool ran, restart scheduled (log)'],
  ['run ended', 'turn ended (log)'],
  ['restart sentinel written', 'config re-read, restart committed (log)'],
  ['restarting', 'stop begins (log "restarting")'],
  ['gateway started', 'new gateway listening (log)'],
  ['Switchboard ready', 'ready (log)'],
  ['delivering the restart note', 'note handed to web chat (log)'],
];

const call = (id: string, args: Record<string, unknown>): FakeStep => ({
  toolCalls: [{ id, name: 'gateway', arguments: args }],
});

/** The stateless fake model; `t0` receives the epoch time of each config.patch answer by iteration. */
function modelStep(t0: Map<number, number>): (request: FakeRequest) => FakeStep {
  return (request) => {
    const messages: { role?: unknown; content?: unknown }[] = request.body?.messages ?? [];
    const lastUser = messages.findLastIndex((message) => message.role === 'user');
    const index = Number(/bench restart (\d+)/.exec(JSON.stringify(messages[lastUser]))?.[1] ?? -1);
    const results = messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
    if (results.length === 0) return call(`get_${index}`, { action: 'config.get' });
    if (results.length === 1) {
      const hash = JSON.parse(String(results[0]?.content)).result?.hash;
      t0.set(index, epochNow());
      return call(`patch_${index}`, {
        action: 'config.patch',
        raw: JSON.stringify({ agents: { main: { displayName: `Bench ${index}` } } }),
        baseHash: hash,
        note: `bench note ${index}`,
        restartDelayMs: 0,
      });
    }
    return { text: `patched ${index}` };
  };
}

interface NoteStream {
  subscribedAt: number;
  /** Epoch time at which the reply with this text was read, or undefined after the timeout. */
  seen(text: string, timeoutMs: number): Promise<number | undefined>;
  close(): void;
}

/** A web chat page's event stream, timing every reply event as it is read. */
async function openNoteStream(gateway: TestGateway, user: string): Promise<NoteStream> {
  const controller = new AbortController();
  const response = await fetch(`${gateway.url}/api/webchat/events?user=${user}`, {
    headers: { authorization: `Bearer ${gateway.token}` },
    signal: controller.signal,
  });
  const subscribedAt = epochNow();
  if (response.status !== 200 || !response.body) throw new Error(`event stream: HTTP ${response.status}`);
  const replies = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = '';
    for (;;) {
      const chunk = await reader.read().catch(() => undefined);
      if (!chunk || chunk.done) return;
      const at = epochNow();
      buffer += chunk.value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (!/^event: reply$/m.test(block) || !data) continue;
        const text = JSON.parse(data).text;
        if (typeof text !== 'string') continue;
        replies.set(text, at);
        waiters.get(text)?.(at);
      }
    }
  })();
  return {
    subscribedAt,
    seen(text, timeoutMs) {
      const at = replies.get(text);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(text);
          resolve(undefined);
        }, timeoutMs);
        waiters.set(text, (seenAt) => {
          clearTimeout(timer);
          waiters.delete(text);
          resolve(seenAt);
        });
      });
    },
    close: () => controller.abort(),
  };
}

/** Polls every millisecond; resolves to the epoch time the condition held, or undefined after the timeout. */
async function pollFast(condition: () => boolean, timeoutMs: number): Promise<number | undefined> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (condition()) return epochNow();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return undefined;
}

async function iteration(
  gateway: TestGateway,
  t0: Map<number, number>,
  index: number,
  pages: NoteStream[],
): Promise<PatchIteration> {
  const logStart = gateway.logLines.length;
  const expectedRestarts = gateway.host.restarts + 1;
  let answeredAt: number | undefined;
  const sent = gateway.send(`bench restart ${index}: rename the agent`).then(
    (response) => {
      answeredAt = epochNow();
      return response.status === 200 ? undefined : `POST answered ${response.status}`;
    },
    (error: unknown) => `POST failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  const readySeen = await pollFast(
    () => gateway.host.restarts === expectedRestarts && gateway.host.loaded !== undefined,
    TIMEOUT_MS,
  );
  let failure: string | undefined = readySeen === undefined ? 'no restart within 15 s' : undefined;
  let stream: NoteStream | undefined;
  let noteSeen: number | undefined;
  if (readySeen !== undefined) {
    stream = await openNoteStream(gateway, 'local');
    // Like a page that stays open: the next restart's stop ends it; close() is for the last one.
    pages.push(stream);
    noteSeen = await stream.seen(`${NOTE_PREFIX}bench note ${index}`, TIMEOUT_MS);
    if (noteSeen === undefined) failure = 'the note did not arrive within 15 s';
  }
  failure ??= await sent;
  if (failure === undefined && gateway.host.loaded?.config.agents.main?.displayName !== `Bench ${index}`)
    failure = `displayName is ${gateway.host.loaded?.config.agents.main?.displayName}`;
  const start = t0.get(index) ?? Number.NaN;
  const lines = gateway.logLines.slice(logStart);
  const milestones = parseMilestones(lines);
  const offsets: Record<string, number> = {};
  for (const [message] of LOG_MILESTONES) offsets[message] = timeOf(milestones, message) - start;
  offsets['POST answered (client)'] = (answeredAt ?? Number.NaN) - start;
  offsets['bench saw ready (1 ms poll)'] = (readySeen ?? Number.NaN) - start;
  offsets['event stream subscribed'] = (stream?.subscribedAt ?? Number.NaN) - start;
  offsets['note seen by the page'] = (noteSeen ?? Number.NaN) - start;
  const store = lines.map((line) => /"store":"([a-z]+:\/\/)/.exec(line)?.[1]).find(Boolean);
  return { milestones: offsets, failure, store };
}

/** `warmup` + `count` patch-and-restart rounds on one gateway (default SQLite store); returns the measured ones. */
export async function measurePatchRestarts(count: number, warmup: number): Promise<PatchIteration[]> {
  const t0 = new Map<number, number>();
  const pages: NoteStream[] = [];
  const step = modelStep(t0);
  const fake = await startFakeOpenAIServer({
    defaultStep: (request) => {
      fake.received.length = 0;
      return step(request);
    },
  });
  try {
    const gateway = await startTestGateway({
      config: {
        models: { bench: { provider: 'openai', model: 'bench', baseUrl: fake.url, apiKey: 'bench-key' } },
        agents: { main: { model: 'bench' } },
        // The restart path is measured, not a human's approval (bench/approvals.ts measures that).
        approvals: { tools: { gateway: 'auto' } },
      },
    });
    try {
      const results: PatchIteration[] = [];
      for (let index = 0; index < warmup + count; index += 1) {
        const result = await iteration(gateway, t0, index, pages);
        if (index >= warmup) results.push(result);
      }
      return results;
    } finally {
      for (const page of pages) page.close();
      await gateway.dispose();
    }
  } finally {
    await fake.close();
  }
}
