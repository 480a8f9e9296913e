export { compactOnDemand } from './compact-on-demand.js';
export { buildTurnContext, type TurnContext } from './turn-context.js';
