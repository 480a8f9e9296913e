import PQueue from 'p-queue';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import type { DeliveryRoute } from '../base/messages/index.js';
import {
  createRestartSentinel,
  dueWith,
  newRestartIntent,
  type RestartIntent,
  type RestartNoteRequest,
} from './restart-sentinel.js';

export interface RestartPromisesOptions {
  /** This host's id, recorded with each promise (see restart-note.ts: its own promises wait). */
  instance: string;
  logger: Logger;
}

export type RestartPromises = ReturnType<typeof createRestartPromises>;

/**
 * The host's side of restart notes: a note promised with a scheduled restart is recorded in the
 * running config's state dir before the caller hears "scheduled"; when the restart runs, its
 * notes are committed (in the new config's state dir); when it is refused, each chat is told why
 * instead. Writes run one at a time in the order they were asked for, so a commit never
 * overtakes the promise it commits.
 */
export function createRestartPromises(options: RestartPromisesOptions) {
  const { logger, instance } = options;
  const writes = new PQueue({ concurrency: 1 });
  let stateDir: string | undefined;
  const sentinelAt = (dir: string) => createRestartSentinel({ stateDir: dir, logger });

  const write = (what: string, task: (dir: string) => Promise<void>): Promise<void> => {
    const dir = stateDir;
    if (dir === undefined) return Promise.resolve();
    return writes.add(() =>
      task(dir).catch((error: unknown) => logger.error({ err: error, dir }, `could not ${what}`)),
    );
  };

  return {
    /** Where promises are recorded: the running config's state dir (set by each boot). */
    useStateDir(dir: string) {
      stateDir = dir;
    },
    /**
     * Adds `note` to a scheduled restart's `intents` (in place, synchronously) and records it.
     * Every request keeps its own note, even from the same owner in the same chat: each one was
     * answered "I will post here when I am back". Resolves once written.
     */
    promise(intents: RestartIntent[], note: RestartNoteRequest): Promise<void> {
      const intent = newRestartIntent(note, instance);
      intents.push(intent);
      return write('record the restart note; it arrives only if this process restarts', (dir) =>
        sentinelAt(dir).record([intent]),
      );
    },
    /** The restart runs: its notes are committed where the new config keeps its state. */
    commit(intents: readonly RestartIntent[], newStateDir = stateDir): Promise<void> {
      if (intents.length === 0) return Promise.resolve();
      const committed = intents.map((intent) => ({ ...intent, status: 'committed' as const }));
      return write('commit the restart notes; they will not be delivered', async (dir) => {
        const sentinel = sentinelAt(newStateDir ?? dir);
        await sentinel.record(committed);
        logger.info({ file: sentinel.file, notes: committed.length }, 'restart sentinel written');
        if (newStateDir !== undefined && dir !== newStateDir)
          await sentinelAt(dir).take(committed.map((intent) => intent.id));
      });
    },
    /**
     * The restart will not happen, or failed: each chat that asked gets `text` instead of its
     * note, through the running gateway's note delivery (wake it after this resolves). Notes
     * already committed in another state dir (`committedIn`) move back to the running one.
     */
    refuse(intents: readonly RestartIntent[], text: string, committedIn?: string): Promise<void> {
      if (intents.length === 0) return Promise.resolve();
      const answers = intents.map((intent) => dueWith(intent, text));
      return write('answer the refused restart in its chats', async (dir) => {
        await sentinelAt(dir).record(answers);
        if (committedIn !== undefined && committedIn !== dir)
          await sentinelAt(committedIn).take(answers.map((intent) => intent.id));
      });
    },
  };
}

/** A note from the shell (`config patch --notify`, `restart --notify`): it has no chat, so it names one. */
export interface ShellNote {
  /** `config-patch` (default) or `restart`: the note's `Gateway restarted (<kind>)`. */
  kind?: 'config-patch' | 'restart';
  stateDir: string;
  route: DeliveryRoute;
  /** The operator's words; without them the note names the kind only. */
  message: string | undefined;
  stats: Record<string, unknown>;
  logger: Logger;
}

/**
 * Records the note committed: the edit is written, so whichever start comes next is the restart
 * it waits for (`Gateway restarted (config-patch): <note>`). A state dir it cannot write is an
 * error result, not a throw: the edit itself is already written. Resolves to the note's id.
 */
export async function recordShellNote(note: ShellNote): Promise<Result<string>> {
  const intent = newRestartIntent(
    {
      kind: note.kind ?? 'config-patch',
      actor: 'cli',
      route: note.route,
      ...(note.message === undefined ? {} : { message: note.message }),
      stats: note.stats,
    },
    'cli',
  );
  const sentinel = createRestartSentinel({ stateDir: note.stateDir, logger: note.logger });
  try {
    await sentinel.record([{ ...intent, status: 'committed' }]);
    return ok(intent.id);
  } catch (error) {
    return fail(`the note could not be recorded in ${sentinel.file}: ${errorText(error)}`);
  }
}

/** Takes back a shell note that will not be followed by a restart (the signal could not be sent). */
export async function withdrawShellNote(stateDir: string, id: string, logger: Logger): Promise<void> {
  await createRestartSentinel({ stateDir, logger }).take([id]);
}

/**
 * A note whose text is final (an update's outcome, issue 31): recorded due under `id` (recording
 * it again replaces it), posted by the gateway that runs now (after a wake) or starts next.
 */
export async function recordDueNote(note: {
  stateDir: string;
  id: string;
  route: DeliveryRoute;
  sessionKey?: string | undefined;
  actor: string;
  text: string;
  logger: Logger;
}): Promise<void> {
  const intent = newRestartIntent(
    {
      kind: 'restart',
      actor: note.actor,
      route: note.route,
      ...(note.sessionKey ? { sessionKey: note.sessionKey } : {}),
    },
    'update',
  );
  await createRestartSentinel({ stateDir: note.stateDir, logger: note.logger }).record([
    dueWith({ ...intent, id: note.id }, note.text),
  ]);
}
