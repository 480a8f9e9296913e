import { approveCommand, confirmCommand, denyCommand } from './approve.js';
import { compactCommand } from './compact.js';
import { configCommand } from './config.js';
import { helpCommand } from './help.js';
import { linkCommand, pairCommand } from './link.js';
import { newCommand } from './new.js';
import { rescueCommand } from './rescue.js';
import { restartCommand } from './restart.js';
import { statusCommand } from './status.js';
import { stopCommand } from './stop.js';
import { subagentsCommand } from './subagents.js';
import type { ChatCommand } from './types.js';
import { updateCommand } from './update.js';
import { usageCommand } from './usage.js';
import { whoamiCommand } from './whoami.js';

export { commandAction } from './command-action.js';
export { RescuePlans } from './rescue-plans.js';
export type {
  ChatCommand,
  CommandContext,
  CommandReply,
  ModelFailoverView,
  RescueAuditStep,
  RescuePort,
  RescueStatus,
} from './types.js';

export const BUILTIN_COMMANDS: readonly ChatCommand[] = [
  helpCommand,
  statusCommand,
  newCommand,
  compactCommand,
  stopCommand,
  subagentsCommand,
  usageCommand,
  whoamiCommand,
  linkCommand,
  configCommand,
  restartCommand,
  updateCommand,
  rescueCommand,
  approveCommand,
  denyCommand,
  confirmCommand,
  pairCommand,
];

const COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/** `/name args` → name and args; anything else (including `/usr/bin …`) is not a command. */
export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? '').trim() };
}
