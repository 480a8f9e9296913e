import type { Config } from '../../base/config/index.js';
import type { RunStore, SessionStore } from '../../records/sessions/index.js';
import type { ToolRegistry, ToolServices } from '../tools/index.js';
import type { FailoverState } from './failover/index.js';
import type { ReadWorkspaceFile } from './model-files.js';
import type { ModelProvider } from './providers/index.js';
import type { UsageMeter } from './types.js';

export interface AgentRunnerOptions {
  config: Config;
  configPath: string;
  /** One provider per `models.<name>`. */
  providers: ReadonlyMap<string, ModelProvider>;
  registry: ToolRegistry;
  services: ToolServices;
  sessions: SessionStore;
  runs: RunStore;
  /** Each agent's own instructions (`systemPrompt` or the text of `systemPromptFile`). */
  instructions: ReadonlyMap<string, string>;
  /** Reads the images posted in chats from the agent's workspace; without it no image is sent. */
  readWorkspaceFile?: ReadWorkspaceFile;
  /** Counts each model call's tokens and refuses a turn whose budget is spent; absent, neither. */
  usage?: UsageMeter;
  /** The gateway's model cooldowns and last failover; without it the runner keeps its own. */
  failover?: FailoverState;
  now?: () => Date;
}

/** What the agent runner keeps between turns, per session. */
export interface RunnerState {
  options: AgentRunnerOptions;
  now(): Date;
  /** The burst counter of each session's current or last turn (rounds since its start or last steered message). */
  bursts: Map<string, number>;
  /** The run id of each session's running turn. */
  running: Map<string, string>;
  failover: FailoverState;
  /** When a session's compaction last failed: turns do not try again for a while (`turn-context.ts`). */
  compactionFailures: Map<string, number>;
}
