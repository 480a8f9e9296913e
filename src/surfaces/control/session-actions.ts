import { randomUUID } from 'node:crypto';
import { errorText } from '../../base/errors/index.js';
import type { OutboundFor } from '../../base/messages/index.js';
import type { SubagentManager, SubagentRun } from '../../engine/subagents/index.js';
import type { SessionStore } from '../../records/sessions/index.js';
import type { SubagentNode } from './contracts.js';
import type { SessionActionsPort } from './routes/session-actions.js';

/** What the control UI's actions need of the sub-agents: a session's runs and `/subagents`' actions. */
type SubagentsView = Pick<SubagentManager, 'runs' | 'act'>;

/** The tree stops this deep (the HTTP layer's `MAX_TREE_DEPTH`) and at this many nodes. */
const MAX_DEPTH = 5;
const MAX_NODES = 200;

/**
 * What the control UI does to a session (`src/surfaces/http/routes/session-actions.ts`): the sub-agent
 * tree and `/subagents`' kill and steer, with the session as the caller (so only its own
 * children), and an owner's post into a Slack or Discord thread or another user's web chat:
 * delivered as the bot, then recorded as a system entry so the transcript (and the agent's next
 * turn) shows it. It is never that chat's user speaking, so it runs no command and no turn.
 */
export function createSessionActions(options: {
  sessions: SessionStore;
  subagents: SubagentsView;
  outboundFor: OutboundFor;
  /** Scrubs a delivery error before the web UI sees it. */
  scrub(text: string): string;
}): SessionActionsPort {
  const { sessions, subagents } = options;
  const callerOf = async (key: string) => ({
    sessionKey: key,
    agentId: (await sessions.get(key))?.agentId ?? '',
  });
  return {
    route: async (key) => (await sessions.get(key))?.route,
    tree: (key) => childrenOf(subagents, key, 1, { count: 0 }),
    async act(key, input) {
      const result = await subagents.act(await callerOf(key), input);
      return result.status === 'ok'
        ? { status: 'ok', text: result.text }
        : { status: 'error', error: result.error };
    },
    async post(key, { text, senderId }) {
      const record = await sessions.get(key);
      if (!record) return { posted: false, reason: `unknown session: ${key}` };
      const posted = `${senderId} (control UI): ${text}`;
      try {
        await options.outboundFor(record.route).reply({ id: randomUUID(), text: posted });
      } catch (error) {
        return { posted: false, reason: options.scrub(errorText(error)) };
      }
      const entry = await sessions.append(key, { role: 'system', text: posted, senderId });
      return { posted: true, seq: entry.seq };
    },
  };
}

/** The session's children as `list` numbers them (active, then recent), each with its own children. */
async function childrenOf(
  subagents: SubagentsView,
  key: string,
  depth: number,
  seen: { count: number },
): Promise<SubagentNode[]> {
  if (depth > MAX_DEPTH || seen.count >= MAX_NODES) return [];
  const list = await subagents.act({ sessionKey: key, agentId: '' }, { action: 'list' });
  if (list.status !== 'ok' || list.action !== 'list') return [];
  const runs = new Map<string, SubagentRun>(
    (await subagents.runs(key)).map((run) => [run.subagentRunId, run]),
  );
  const nodes: SubagentNode[] = [];
  for (const entry of [...list.active, ...list.recent]) {
    if (seen.count >= MAX_NODES) break;
    seen.count += 1;
    const run = runs.get(entry.runId);
    nodes.push({
      index: entry.index,
      runId: entry.runId,
      label: entry.label,
      status: entry.status,
      startedAt: entry.startedAt,
      runtimeMs: entry.runtimeMs,
      agentId: run?.agentId ?? '',
      model: run?.model ?? '',
      childSessionKey: entry.childSessionKey,
      parentSessionKey: key,
      children: await childrenOf(subagents, entry.childSessionKey, depth + 1, seen),
    });
  }
  return nodes;
}
