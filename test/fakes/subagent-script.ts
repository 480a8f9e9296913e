import { SYSTEM_MARKER } from '../../src/engine/agents/index.js';
import type { Cleanups } from '../helpers/teardown.js';
import type { FakeModelServer, FakeRequest, FakeStep } from './fake-model-server.js';
import { startFakeOpenAIServer } from './fake-openai-server.js';

/**
 * Scripts one fake model for a parent session and its sub-agents, which all call the same
 * server: each request is routed by who asks (the session named in its system prompt) and, for
 * a sub-agent, by its task (the first user message of its session). Use `step` as the fake's
 * `defaultStep` and push nothing onto the fake itself.
 */

export type Responder = FakeStep | ((request: FakeRequest) => FakeStep | Promise<FakeStep>);

export const ANNOUNCEMENT_PREFIX = 'Sub-agent announcement (from the runtime, not a user): ';

/** The session key a model request comes from, as its system prompt names it. */
export function sessionOf(request: FakeRequest): string {
  const system = String(request.body?.messages?.[0]?.content ?? '');
  return /\(session ([^)\s]+)\)/.exec(system)?.[1] ?? '';
}

/** Starts a fake model scripted per session (`{ text: 'ok' }` when a session has no step left) and pushes its close onto `cleanups`. */
export async function startSessionScriptedModel(cleanups: Cleanups): Promise<{
  model: FakeModelServer;
  script(session: string, ...steps: Responder[]): void;
  requestsOf(session: string): FakeRequest[];
}> {
  const steps = new Map<string, Responder[]>();
  const model = await startFakeOpenAIServer({
    defaultStep: (request) => {
      const step = steps.get(sessionOf(request))?.shift() ?? { text: 'ok' };
      return typeof step === 'function' ? step(request) : step;
    },
  });
  cleanups.push(() => model.close());
  return {
    model,
    script: (session, ...more) => void steps.set(session, [...(steps.get(session) ?? []), ...more]),
    requestsOf: (session) => model.received.filter((request) => sessionOf(request) === session),
  };
}

/** 0 for a chat session, 1 for its sub-agent, 2 below that. */
export function depthOf(sessionKey: string): number {
  return sessionKey.split(':subagent:').length - 1;
}

function conversation(request: FakeRequest): any[] {
  return (request.body?.messages ?? []).filter((message: any) => message.role !== 'system');
}

/** The first user message of the request's conversation: a sub-agent's task. */
export function taskOf(request: FakeRequest): string {
  return String(conversation(request).find((message) => message.role === 'user')?.content ?? '');
}

/** The user messages of the conversation (announcements read `⟦system⟧ Sub-agent announcement …`). */
export function userTexts(request: FakeRequest): string[] {
  return conversation(request)
    .filter((message) => message.role === 'user')
    .map((message) => String(message.content));
}

/** The parsed results of every tool call in the conversation, oldest first. */
export function toolResults(request: FakeRequest): any[] {
  return conversation(request)
    .filter((message) => message.role === 'tool')
    .map((message) => {
      try {
        return JSON.parse(message.content);
      } catch {
        return message.content;
      }
    });
}

/** The tool names offered to the model. */
export function toolNames(request: FakeRequest): string[] {
  return (request.body?.tools ?? []).map((tool: any) => String(tool.function?.name ?? tool.name));
}

function isAnnouncement(message: any): boolean {
  return (
    message.role === 'user' && String(message.content).startsWith(`${SYSTEM_MARKER} ${ANNOUNCEMENT_PREFIX}`)
  );
}

/** The announcement a message carries, parsed. */
export function parseAnnouncement(text: string): any {
  const start = text.indexOf(ANNOUNCEMENT_PREFIX);
  return start < 0 ? undefined : JSON.parse(text.slice(start + ANNOUNCEMENT_PREFIX.length));
}

/**
 * True when the request answers announcements only: every message since the model last spoke
 * is an announcement (a turn started by the runtime, not by a user or a tool result).
 */
export function answersAnnouncements(request: FakeRequest): boolean {
  const messages = conversation(request);
  const lastModel = messages.findLastIndex((message) => message.role !== 'user');
  const fresh = messages.slice(lastModel + 1);
  return fresh.length > 0 && fresh.every(isAnnouncement);
}

/** A promise the test resolves: holds a model answer or a tool until the test says so. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open: (value: T) => open(value) };
}

export function createSubagentScript() {
  const parentSteps: Responder[] = [];
  const childSteps: { match: string; steps: Responder[] }[] = [];
  let announcementStep: Responder = (request) => {
    const announcement = parseAnnouncement(userTexts(request).at(-1) ?? '');
    return { text: `Heard: ${announcement?.label} ended ${announcement?.status}: ${announcement?.result}` };
  };

  const answer = (responder: Responder, request: FakeRequest) =>
    typeof responder === 'function' ? responder(request) : responder;

  return {
    /** The fake's `defaultStep`. */
    step(request: FakeRequest): FakeStep | Promise<FakeStep> {
      if (answersAnnouncements(request)) return answer(announcementStep, request);
      const session = sessionOf(request);
      if (depthOf(session) === 0) return answer(parentSteps.shift() ?? { text: 'ok' }, request);
      const task = taskOf(request);
      const scripted = childSteps.find((entry) => task.includes(entry.match) && entry.steps.length > 0);
      return answer(scripted?.steps.shift() ?? { text: `done: ${task}` }, request);
    },
    /** Steps for chat sessions (depth 0), in order; `{ text: 'ok' }` when none is left. */
    parent(...steps: Responder[]): void {
      parentSteps.push(...steps);
    },
    /** Steps for the sub-agent whose task contains `match`; `done: <task>` when none is left. */
    child(match: string, ...steps: Responder[]): void {
      childSteps.push({ match, steps });
    },
    /** How any session answers a turn started by announcements only. */
    onAnnouncement(responder: Responder): void {
      announcementStep = responder;
    },
  };
}

/** Model requests of sub-agents whose task contains `match`. */
export function childRequests(received: readonly FakeRequest[], match: string): FakeRequest[] {
  return received.filter((request) => depthOf(sessionOf(request)) > 0 && taskOf(request).includes(match));
}
