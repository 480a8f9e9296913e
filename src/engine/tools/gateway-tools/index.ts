import type { Tool } from '../types.js';
import { askUserTool } from './ask-user.js';
import { chatAttachTool } from './chat-attach.js';
import { gatewayTool } from './gateway-tool.js';
import { sessionStatusTool } from './session-status.js';
import { sessionsListTool } from './sessions-list.js';
import { sessionsSpawnTool } from './sessions-spawn-tool.js';
import { subagentsTool } from './subagents-tool.js';

/** The tools every gateway registers (source `builtin`). */
export const GATEWAY_TOOLS: readonly Tool[] = [
  askUserTool,
  sessionsListTool,
  sessionStatusTool,
  sessionsSpawnTool,
  subagentsTool,
  gatewayTool,
  chatAttachTool,
] as Tool[];
