// What the Tools page's routes answer (`/api/projects/<project>/tool-ui`, `…/roster`,
// `…/tool-status`, `/api/toolpacks`): the server's contracts (`src/surfaces/control/contracts.ts`),
// imported as types only, so the page reads what the route answers.
export type {
  RosterAgentView,
  RosterView,
  SchedulerHookView,
  ToolpackReport,
  ToolStatusPage,
  ToolStatusView,
  WebuiAnswer,
  WebuiEntriesView,
  WebuiEntryView,
} from '../../../src/surfaces/control/contracts.js';
