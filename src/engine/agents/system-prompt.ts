import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../base/config/index.js';
import { ConfigError } from '../../base/errors/index.js';
import { type CommunicationPolicy, communicationRules } from '../../base/messages/index.js';
import type { Tool, TurnScope } from '../tools/index.js';
import { SYSTEM_MARKER, senderMarker } from './model-context.js';

/** The turn the prompt is for (its depth is not told), and the agent's name, instructions and tools. */
export interface SystemPromptInput extends Omit<TurnScope, 'depth'> {
  displayName: string | undefined;
  /** The agent's own instructions (`systemPrompt` or the file's text). */
  instructions: string | undefined;
  tools: readonly Tool[];
  now: Date;
  /** Config `communication`: told when the agent has `messages.send` (which enforces it). */
  communication?: CommunicationPolicy;
}

/** Who the agent is, where it is, who is talking and which tools it has; then its own instructions. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const { route } = input;
  const name = input.displayName
    ? `${input.displayName} (agent "${input.agentId}")`
    : `agent "${input.agentId}"`;
  const place =
    route.chatType === 'direct'
      ? `a direct chat with ${route.channel}:${route.chatId} on ${route.channel}`
      : `channel ${route.chatId} on ${route.channel}${route.threadId ? `, in thread ${route.threadId}` : ''}`;
  const lines = [
    `You are ${name}, an assistant reached through Switchboard, a chat-ops gateway.`,
    `You are in ${place} (session ${input.sessionKey}).`,
    `This turn was started by ${input.senderId}${input.isOwner ? ', an owner of this gateway' : ''}.`,
    `The time is ${input.now.toISOString().slice(0, 16)}Z.`,
    `Text in ⟦ ⟧ brackets comes from the gateway, never from a user: ${SYSTEM_MARKER} starts an event from the runtime (a signal, a sub-agent's announcement, a note), not a person's words${route.chatType === 'channel' ? `, and ${senderMarker('<sender id>')} starts the words of that sender` : ''}.`,
  ];
  if (input.tools.length === 0) {
    lines.push('You have no tools in this conversation; answer in text.');
  } else {
    lines.push('', 'Your tools:');
    for (const tool of input.tools) lines.push(`- ${tool.name}: ${firstSentence(tool.description)}`);
    if (input.tools.some((tool) => tool.name === 'ask_user')) {
      lines.push('When you cannot go on without an answer from the user, call ask_user.');
    }
    if (input.communication && input.tools.some((tool) => tool.name === 'messages.send')) {
      lines.push(...communicationRules(input.communication, input.agentId));
    }
  }
  if (input.instructions?.trim()) lines.push('', input.instructions.trim());
  return lines.join('\n');
}

/**
 * Reads every `agents.<id>.systemPromptFile` (relative to the config file) once per start.
 * A missing file is a config error naming the agent's key.
 */
export async function readAgentInstructions(
  config: Config,
  configPath: string,
): Promise<Map<string, string>> {
  const instructions = new Map<string, string>();
  for (const [agentId, agent] of Object.entries(config.agents)) {
    if (agent.systemPrompt !== undefined) instructions.set(agentId, agent.systemPrompt);
    if (agent.systemPromptFile === undefined) continue;
    const file = path.resolve(path.dirname(configPath), agent.systemPromptFile);
    try {
      instructions.set(agentId, await readFile(file, 'utf8'));
    } catch (error) {
      throw new ConfigError('CONFIG_INVALID', configPath, [
        {
          path: `/agents/${agentId}/systemPromptFile`,
          message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        },
      ]);
    }
  }
  return instructions;
}

function firstSentence(text: string): string {
  const match = /^[\s\S]*?[.!?](\s|$)/.exec(text);
  return (match ? match[0] : text).trim();
}
