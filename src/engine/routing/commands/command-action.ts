import type { Action } from '../../../base/access/index.js';
import type { ChatCommand } from './types.js';

/** The `can` question for a chat command. */
export function commandAction(command: Pick<ChatCommand, 'name' | 'ownerOnly'>): Action {
  return { kind: 'command', name: command.name, ...(command.ownerOnly ? { ownerOnly: true } : {}) };
}
