import type { Config } from '../../base/config/index.js';

/**
 * What a tool may need besides being registered (`Tool.requires`). Kept to the prerequisites this
 * gateway really has: `chat-channel`, a chat platform that takes files (webchat, Slack or Discord;
 * `chat.attach` has nowhere to send a file without one), checked against the config; and
 * `spawn-depth`, a turn less deep than `subagents.maxSpawnDepth` (the tool starts or steers
 * sub-agents one level deeper), checked per turn by the runner's policy (`turnPolicy`): no
 * config misses it, a turn too deep neither sees nor runs the tool.
 */
export const TOOL_REQUIREMENTS = ['chat-channel', 'spawn-depth'] as const;
export type ToolRequirement = (typeof TOOL_REQUIREMENTS)[number];

/** Why the requirement is not met by this config, for owners (doctor, /status) and the model; met: undefined. */
function missing(requirement: ToolRequirement, config: Config): string | undefined {
  switch (requirement) {
    case 'chat-channel':
      return config.channels.webchat.enabled || config.channels.slack || config.channels.discord
        ? undefined
        : 'needs a chat channel that takes files (channels.webchat, channels.slack or channels.discord)';
    case 'spawn-depth':
      return undefined;
  }
}

/** The first of the tool's requirements this config misses, as a reason; all met (or none): undefined. */
export function unmetRequirement(
  tool: { requires?: readonly ToolRequirement[] | undefined },
  config: Config,
): string | undefined {
  for (const requirement of tool.requires ?? []) {
    const reason = missing(requirement, config);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
