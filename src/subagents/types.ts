import type { Router } from '../routing/index.js';

/** What the sub-agent service needs of the router. */
export type SubagentTurns = Pick<Router, 'startTurn' | 'stopTurn' | 'clearQueue'>;
