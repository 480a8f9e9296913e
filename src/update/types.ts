import type { DeliveryRoute } from '../base/messages/index.js';
import type { Pm2Installation } from './pm2.js';

/** A version of the gateway: its commit (full), the tag on it if any, package.json's version. */
export interface UpdateVersion {
  commit: string;
  tag?: string | undefined;
  package?: string | undefined;
}

/** `8f3a2c1 (v0.2.0)`: how a version is named in notes and answers. */
export function versionName(version: Pick<UpdateVersion, 'commit' | 'tag'>): string {
  const short = version.commit.slice(0, 7);
  return version.tag ? `${short} (${version.tag})` : short;
}

/** Where updates come from: a git remote and branch (the only kind so far; npm later). */
export interface GitSource {
  kind: 'git';
  remote: string;
  branch: string;
}

/** `update.check`'s answer. */
export interface UpdateCheck {
  source: GitSource;
  current: UpdateVersion;
  available: UpdateVersion;
  /** Commits the update brings, newest first (at most 50). */
  commits: { commit: string; subject: string }[];
  /** The commits between, or false when the checkout is already there. */
  newer: boolean;
  lockfileChanged: boolean;
  /** A file of the config schema (`src/base/config/schema/*.ts`, `config/gateway.schema.json`) changed. */
  configSchemaChanged: boolean;
  /** The available commit rolled back before: `update.run` skips it unless an owner names it. */
  rolledBackBefore: boolean;
}

/**
 * The phases of an update run, in order. Up to `canary` the running gateway is untouched; from
 * `checkpoint` on a failure rolls back. The last five are outcomes (`interrupted`: the updater
 * stopped, a SIGKILL; found and ended by the next look at the ledger).
 */
export const PHASES = [
  'requested',
  'fetch',
  'worktree',
  'dependencies',
  'build',
  'start-check',
  'migration',
  'rehearsal',
  'canary',
  'checkpoint',
  'switch',
  'restart',
  'watch',
  'rollback',
  'done',
  'failed',
  'rolled-back',
  'rollback-failed',
  'interrupted',
] as const;
export type UpdatePhase = (typeof PHASES)[number];

export const OUTCOMES: readonly UpdatePhase[] = [
  'done',
  'failed',
  'rolled-back',
  'rollback-failed',
  'interrupted',
];

export function isOutcome(phase: UpdatePhase): boolean {
  return OUTCOMES.includes(phase);
}

/** The phases after which the running gateway has been touched (a failure from here rolls back). */
export const SWITCH_PHASES: readonly UpdatePhase[] = ['checkpoint', 'switch', 'restart', 'watch', 'rollback'];

/** How the gateway process is stopped and started: pm2 (its app id) or by the updater itself. */
export type GatewayLaunch =
  | {
      supervisor: 'pm2';
      pmId: number;
      name: string;
      /** The pm2 that runs the gateway (its API is used, never another version's). */
      pm2: Pm2Installation;
    }
  | {
      supervisor: 'self';
      /** The node binary, its arguments (the script first), working directory and environment. */
      execPath: string;
      args: string[];
      cwd: string;
    };

/** What the switch did, so that a rollback (by the updater or by hand) can undo it. */
export interface Checkpoint {
  dir: string;
  /** The config file's text before the switch was saved as `<dir>/config`. */
  configFile: string;
  /** The SQLite file, when the store is SQLite; its online backup is `<dir>/store.sqlite`. */
  storeFile?: string | undefined;
  /** The checkout's branch before (undefined: detached). */
  branch?: string | undefined;
}

/**
 * One update run as the ledger keeps it: durable, one at a time (the lease), with every phase it
 * reached and when, why it failed and what the rollback did.
 */
export interface UpdateRun {
  id: string;
  requestedAt: number;
  /** Who asked (a sender id, or `cli`). */
  by: string;
  /** The chat that asked and gets the outcome note; none from the shell without --notify. */
  route?: DeliveryRoute | undefined;
  sessionKey?: string | undefined;
  /** The checkout being updated (its top directory). */
  root: string;
  configFile: string;
  stateDir: string;
  /** The gateway's working directory (the config's relative paths start there). */
  cwd: string;
  /** `<stateDir>/update/runs/<id>`: the worktree, the rehearsal, the checkpoint, the logs. */
  runDir: string;
  settings: { watchMs: number; startTimeoutMs: number; keepMs: number; stopTimeoutMs: number };
  source: GitSource;
  from: UpdateVersion;
  to: UpdateVersion;
  phase: UpdatePhase;
  phases: { phase: UpdatePhase; at: number }[];
  /** Held by the updater process; a run whose lease expired and whose holder is gone is stale. */
  lease: { pid: number; expiresAt: number };
  gateway: { pid: number; launch: GatewayLaunch };
  /** The canary's pid while it runs (a recovery ends it). */
  canaryPid?: number | undefined;
  checkpoint?: Checkpoint | undefined;
  /** The step that failed and why. */
  cause?: { phase: UpdatePhase; reason: string } | undefined;
  rollback?: { outcome: 'restored' | 'failed'; reason?: string; at: number } | undefined;
  /**
   * The config migration step: `none` when the current config validates against the target;
   * `needed` when it does not and the target changed the config schema: the run waits (phase
   * `migration`) for a second owner approval, then checks again.
   */
  migration?: UpdateMigration | undefined;
  /** The outcome note was written to the restart-note path (so it is not written twice). */
  noted?: boolean | undefined;
  /** Times of each phase in ms, for the bench and `update.status`. */
  durations?: Partial<Record<UpdatePhase, number>> | undefined;
}

/** What the migration step found (see `UpdateRun.migration`). */
export type UpdateMigration =
  | { outcome: 'none' }
  | {
      outcome: 'needed';
      /** What the target needs changed: its start check's errors, naming the config paths. */
      changes: string;
      /** The note asking for the approval was written. */
      noted?: boolean | undefined;
      /** The owner who approved going on, and when. */
      approved?: { by: string; at: number } | undefined;
    };

/** The ledger file: the current (or last) run, earlier ones, versions that rolled back. */
export interface LedgerFile {
  version: 1;
  run?: UpdateRun | undefined;
  history: UpdateRun[];
  /** Commits that rolled back: never tried again unless an owner names one. */
  rolledBack: string[];
}
