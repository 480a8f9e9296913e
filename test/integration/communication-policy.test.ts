import { describe, expect, it } from 'vitest';
import { sessionOf, startSessionScriptedModel, toolResults } from '../fakes/subagent-script.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * Suzumio's communication-policy cases (test/communication-policy.test.mjs there), as data, over a
 * running gateway: the model of one agent calls `messages.send`, the tool result says sent or
 * refused (naming the rule), and a sent message reaches its recipient (a wake turn of the agent,
 * carrying its priority) or the chat (`user`, a route). Suzumio's project `pm`/`worker`/`verifier`
 * maps to three agents; `pm` is the coordinator and answers web chat `local`, `worker` answers
 * web chat `worker` (a binding). Suzumio's activation of `pm` is here `pm`'s wake turn.
 */

const cleanups = cleanupAfterEach();
type Sender = 'pm' | 'worker';
/** Where a sent message must show up: an agent's wake turn (with this priority) or a chat's replies. */
type Arrival = { agent: 'pm' | 'verifier' | 'worker'; priority: string } | { chat: string };

interface Case {
  name: string;
  sender: Sender;
  send: Record<string, unknown>;
  /** Refused: the config key the reason names, and what else it says. */
  refused?: { rule: 'restrictNonCoordinatorToCoordinator' | 'nonCoordinatorMaxPriority'; says: RegExp };
  arrives?: Arrival;
}

const RESTRICTED = {
  coordinatorAgent: 'pm',
  restrictNonCoordinatorToCoordinator: true,
  nonCoordinatorMaxPriority: 'P2',
  pmRoutineVerifierPriority: 'P3',
};

const restricted = (says: RegExp) => ({ rule: 'restrictNonCoordinatorToCoordinator' as const, says });
const tooUrgent = (says: RegExp) => ({ rule: 'nonCoordinatorMaxPriority' as const, says });

/** Suzumio's "communication policy restricts non-coordinator messages", and the coordinator's freedom. */
const RESTRICTED_CASES: Case[] = [
  {
    name: 'worker → verifier: only the coordinator',
    sender: 'worker',
    send: { recipient: 'verifier', priority: 'P1', body: 'review this' },
    refused: restricted(/may message only pm, not verifier/),
  },
  {
    name: 'worker → user: only the coordinator',
    sender: 'worker',
    send: { recipient: 'user', priority: 'P1', body: 'report to the human' },
    refused: restricted(/may message only pm, not user/),
  },
  {
    name: 'worker → #project: no channels',
    sender: 'worker',
    send: { channel: '#project', priority: 'P1', body: 'broadcast' },
    refused: restricted(/only pm; channels are not allowed/),
  },
  {
    name: 'worker → pm at P0: above nonCoordinatorMaxPriority',
    sender: 'worker',
    send: { recipient: 'pm', priority: 'P0', body: 'not an emergency' },
    refused: tooUrgent(/P2 or lower; P0 is not allowed/),
  },
  {
    name: 'worker → pm at P2: allowed',
    sender: 'worker',
    send: { recipient: 'pm', priority: 'P2', body: 'valid report' },
    arrives: { agent: 'pm', priority: 'P2' },
  },
  {
    name: 'worker → pm, no priority: the default P3 (Suzumio "defaults routine messages to P3")',
    sender: 'worker',
    send: { recipient: 'pm', body: 'routine status' },
    arrives: { agent: 'pm', priority: 'P3' },
  },
  {
    name: 'pm (coordinator) → verifier at P0: free',
    sender: 'pm',
    send: { recipient: 'verifier', priority: 'P0', body: 'stop the release' },
    arrives: { agent: 'verifier', priority: 'P0' },
  },
  {
    name: 'pm (coordinator) → #project: free',
    sender: 'pm',
    send: { channel: '#project', body: 'release is paused' },
    arrives: { chat: 'pm: release is paused' },
  },
  {
    name: 'pm (coordinator) → user: free',
    sender: 'pm',
    send: { recipient: 'user', priority: 'P1', body: 'needs your decision' },
    arrives: { chat: 'pm: needs your decision' },
  },
];

/** Without a `communication` section (Suzumio's defaults): no restriction, default priority P3. */
const DEFAULT_CASES: Case[] = [
  {
    name: 'worker → verifier at P0: the restriction is off by default',
    sender: 'worker',
    send: { recipient: 'verifier', priority: 'P0', body: 'urgent review' },
    arrives: { agent: 'verifier', priority: 'P0' },
  },
  {
    name: 'worker → #project: allowed by default',
    sender: 'worker',
    send: { channel: '#project', body: 'worker broadcast' },
    arrives: { chat: 'worker: worker broadcast' },
  },
  {
    name: 'worker → pm, no priority: P3',
    sender: 'worker',
    send: { recipient: 'pm', body: 'default priority' },
    arrives: { agent: 'pm', priority: 'P3' },
  },
];

/** Restriction on with every other key left out: coordinator `defaultAgent`, max priority P2. */
const RESTRICTED_DEFAULT_CASES: Case[] = [
  {
    name: 'worker → pm at P1: nonCoordinatorMaxPriority defaults to P2',
    sender: 'worker',
    send: { recipient: 'pm', priority: 'P1', body: 'too urgent' },
    refused: tooUrgent(/P2 or lower; P1 is not allowed/),
  },
  {
    name: 'worker → verifier: the coordinator defaults to defaultAgent (pm)',
    sender: 'worker',
    send: { recipient: 'verifier', body: 'not the coordinator' },
    refused: restricted(/may message only pm, not verifier/),
  },
  {
    name: 'worker → pm at P2: allowed',
    sender: 'worker',
    send: { recipient: 'pm', priority: 'P2', body: 'within the limit' },
    arrives: { agent: 'pm', priority: 'P2' },
  },
];

const CHAT_OF: Record<Sender, { user: string; session: string }> = {
  pm: { user: 'local', session: 'agent:pm:webchat:direct:local' },
  worker: { user: 'worker', session: 'agent:worker:webchat:direct:worker' },
};

async function policyGateway(communication: Record<string, unknown> | undefined, project: string) {
  const { model, script } = await startSessionScriptedModel(cleanups);
  const gateway = await startTestGateway({
    config: {
      tools: { toolpacks: ['core'] },
      routes: { '#project': `webchat:${project}` },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-policy' } },
      defaultAgent: 'pm',
      agents: { pm: { model: 'fake' }, worker: { model: 'fake' }, verifier: { model: 'fake' } },
      bindings: [{ agent: 'worker', match: { channel: 'webchat', chatId: 'worker' } }],
      ...(communication ? { communication } : {}),
      scheduler: { tickMs: 50 },
      gateway: { drainTimeoutMs: 200 },
    },
  });
  cleanups.push(() => gateway.dispose());
  const chats = [await openEvents(gateway, 'local'), await openEvents(gateway, 'worker')];
  // `user` goes to the coordinator's latest chat: pm has one before any case runs.
  expect((await gateway.send('hello')).status).toBe(200);
  /** Has `sender`'s model call messages.send once; resolves with the tool's result. */
  async function send(sender: Sender, args: Record<string, unknown>): Promise<any> {
    const { user, session } = CHAT_OF[sender];
    let result: unknown;
    script(session, { toolCalls: [{ name: 'messages.send', arguments: args }] }, (request) => {
      result = toolResults(request).at(-1);
      return { text: 'done' };
    });
    expect((await gateway.send(`send it (${String(args.body)})`, user)).status).toBe(200);
    return result;
  }
  const replies = () =>
    chats.flatMap((chat) =>
      chat.events.filter((event) => event.type === 'reply').map((event) => String(event.data.text)),
    );
  /** The last message of each wake-turn request of `agent`'s main session. */
  const woken = (agent: string) =>
    model.received
      .filter((request) => sessionOf(request) === `agent:${agent}:main`)
      .map((request) => String(request.body.messages.at(-1)?.content ?? ''));
  const systemOf = (session: string) =>
    String(model.received.find((request) => sessionOf(request) === session)?.body.messages[0]?.content ?? '');
  return { send, replies, woken, systemOf, received: () => model.received };
}

async function runCases(cases: Case[], communication: Record<string, unknown> | undefined, project: string) {
  const rig = await policyGateway(communication, project);
  for (const item of cases) {
    const result = await rig.send(item.sender, item.send);
    if (item.refused) {
      expect(result, item.name).toMatchObject({ ok: false });
      expect(result.reason, item.name).toMatch(
        new RegExp(`^refused by communication\\.${item.refused.rule}: `),
      );
      expect(result.reason, item.name).toMatch(item.refused.says);
      continue;
    }
    expect(result, item.name).toMatchObject({ ok: true, id: expect.stringMatching(/^msg_/) });
    const arrival = item.arrives as Arrival;
    const body = String(item.send.body);
    if ('chat' in arrival) {
      await expect.poll(rig.replies, { message: item.name }).toContain(arrival.chat);
      continue;
    }
    await expect
      .poll(() => rig.woken(arrival.agent).some((text) => text.includes(body)), { message: item.name })
      .toBe(true);
    const carried = rig.woken(arrival.agent).find((text) => text.includes(body));
    expect(carried, item.name).toContain(`"priority":"${arrival.priority}"`);
  }
  // A refused send sent nothing: its body reached no other session and no chat (every later case's
  // message has arrived, and a queued signal would have been delivered before them or with them).
  for (const item of cases.filter((each) => each.refused)) {
    const body = String(item.send.body);
    const elsewhere = rig
      .received()
      .filter((request) => sessionOf(request) !== CHAT_OF[item.sender].session)
      .some((request) => JSON.stringify(request.body.messages).includes(body));
    expect(elsewhere, `${item.name}: nothing sent`).toBe(false);
    expect(
      rig.replies().some((text) => text.includes(body)),
      `${item.name}: nothing posted`,
    ).toBe(false);
  }
  return rig;
}

describe("Suzumio's communication policy, over a running gateway", () => {
  it('restricted: non-coordinators message only the coordinator, at most P2; the coordinator is free', async () => {
    const rig = await runCases(RESTRICTED_CASES, RESTRICTED, 'local');
    // Rendered in the prompt as Suzumio renders it into its activation instructions.
    expect(rig.systemOf(CHAT_OF.worker.session)).toContain(
      'Communication policy: message only pm (not user, routes or other agents), at P2 or lower',
    );
    expect(rig.systemOf(CHAT_OF.pm.session)).toContain('Communication policy: you are the coordinator.');
    expect(rig.systemOf(CHAT_OF.pm.session)).toContain('routine review and delegation at P3');
  });

  it('defaults: no restriction, and messages.send sends P3', async () => {
    // `#project` is the worker's own chat: a post there asks no approver.
    const rig = await runCases(DEFAULT_CASES, undefined, 'worker');
    expect(rig.systemOf(CHAT_OF.worker.session)).toContain('P3 (the default)');
    expect(rig.systemOf(CHAT_OF.worker.session)).not.toContain('Communication policy');
  });

  it('restricted with the other keys left out: coordinator defaultAgent, max priority P2', async () => {
    await runCases(RESTRICTED_DEFAULT_CASES, { restrictNonCoordinatorToCoordinator: true }, 'local');
  });
});
