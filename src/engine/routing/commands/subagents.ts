import type { SubagentsActionInput } from '../../tools/index.js';
import type { ChatCommand } from './types.js';

const USAGE = 'Usage: /subagents list | /subagents kill <target|all> | /subagents steer <target> <message>';

/**
 * `/subagents` manages this session's children without a model. Not owner-only: whoever may talk
 * in the session may stop or redirect what it spawned. Targets are those of the `subagents` tool.
 */
export const subagentsCommand: ChatCommand = {
  name: 'subagents',
  summary:
    'List, kill or steer the sub-agents this session spawned: list, kill <target|all>, steer <target> <message>.',
  options: [
    { kind: 'subcommand', name: 'list', description: "List this session's sub-agents." },
    {
      kind: 'subcommand',
      name: 'kill',
      description: 'Stop a sub-agent (or all of them).',
      options: [
        {
          kind: 'text',
          name: 'target',
          description: 'Its number, label, id prefix, or all.',
          required: true,
        },
      ],
    },
    {
      kind: 'subcommand',
      name: 'steer',
      description: 'Send a sub-agent a new instruction.',
      options: [
        { kind: 'text', name: 'target', description: 'Its number, label or id prefix.', required: true },
        { kind: 'text', name: 'message', description: 'What it should do now.', required: true },
      ],
    },
  ],
  async run(context) {
    const [, subcommand = '', target = '', message = ''] =
      /^(\S*)\s*(\S*)\s*([\s\S]*)$/.exec(context.args) ?? [];
    // A steer that restarts an ended child makes a run charged to whoever typed it.
    const caller = {
      sessionKey: context.sessionKey,
      agentId: context.agentId,
      chargedTo: context.message.senderId,
    };
    const act = (input: SubagentsActionInput) => context.subagents.act(caller, input);
    switch (subcommand.toLowerCase()) {
      case '':
      case 'list':
        return reply(await act({ action: 'list' }));
      case 'kill':
        // Everything after `kill` is the target, so a label with spaces works here.
        if (target === '') return 'Usage: /subagents kill <target|all>';
        return reply(await act({ action: 'kill', target: `${target} ${message}`.trim() }));
      case 'steer':
        // The target is one word: name a label with spaces by its number or a prefix.
        if (target === '' || message.trim() === '') return 'Usage: /subagents steer <target> <message>';
        return reply(await act({ action: 'steer', target, message }));
      default:
        return USAGE;
    }
  },
};

function reply(result: { text?: string; error?: string }): string {
  return result.text ?? result.error ?? '';
}
