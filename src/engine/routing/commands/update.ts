import type { ChatCommand } from './types.js';

const USAGE = 'Usage: /update check | /update run [commit or tag] | /update status | /update approve';

/**
 * `/update check|run|status`: the gateway tool's update actions for an owner typing. `run`
 * answers once the updater started; the outcome is posted here as a restart note.
 */
export const updateCommand: ChatCommand = {
  name: 'update',
  summary:
    'Update the gateway from its configured source: /update check, /update run, /update status, /update approve (a config change an update waits for).',
  ownerOnly: true,
  async run({ args, gateway, message, route, sessionKey }) {
    const update = gateway.update;
    if (update === undefined) return 'Updates are not available in this gateway.';
    const [action, target, ...rest] = args.trim().split(/\s+/).filter(Boolean);
    if (rest.length > 0) return USAGE;
    const result =
      action === 'check' && target === undefined
        ? await update.check()
        : action === 'status' && target === undefined
          ? await update.status()
          : action === 'approve' && target === undefined
            ? await update.approve({ by: message.senderId })
            : action === 'run'
              ? await update.run({ by: message.senderId, sessionKey, route, target })
              : undefined;
    if (result === undefined) return USAGE;
    return result.ok ? result.value.text : `Update: ${result.error}`;
  },
};
