import { randomUUID } from 'node:crypto';
import {
  createTurnStream,
  type TurnEmit,
  type TurnRequest,
  type TurnResult,
  type TurnRunner,
  type TurnSession,
  type TurnStream,
} from '../../src/engine/agents/index.js';

export interface StreamingRunnerScript {
  /** The parts streamed as `text_delta` events, one per step. */
  deltas: string[];
  /** The complete reply returned at the end; defaults to the deltas joined. */
  final?: string;
}

interface Step {
  promise: Promise<void>;
  resolve(): void;
}

/**
 * A turn runner that streams a scripted reply one part at a time, each part only when the
 * test allows it with `step()`: the test decides when the page sees each partial text, so it
 * needs no timing. In each turn, step `i < deltas.length` emits delta `i` and the step after
 * the last delta returns the final reply; steps count on across turns (turns of one session
 * run one after another). An aborted turn (`/stop`, gateway stop) ends at once as `killed`.
 */
export class StreamingRunner implements TurnRunner {
  /** The requests of every turn started so far. */
  readonly turns: TurnRequest[] = [];
  private readonly steps: Step[] = [];
  /** Steps allowed by `step()` so far, and steps taken by turns so far (they count across turns). */
  private released = 0;
  private consumed = 0;
  private releasedAll = false;
  private readonly startWaiters: Array<{ count: number; resolve(): void }> = [];

  constructor(private readonly script: StreamingRunnerScript) {}

  runTurn(request: TurnRequest, session: TurnSession): TurnStream {
    return createTurnStream((emit) => this.stream(request, session, emit));
  }

  private async stream(request: TurnRequest, session: TurnSession, emit: TurnEmit): Promise<TurnResult> {
    this.turns.push(request);
    for (const waiter of this.startWaiters.splice(0)) {
      if (this.turns.length >= waiter.count) waiter.resolve();
      else this.startWaiters.push(waiter);
    }
    const id = randomUUID();
    const { deltas } = this.script;
    for (let index = 0; index <= deltas.length; index++) {
      if (!(await this.waitForStep(this.consumed++, request.signal))) return { status: 'killed' };
      const delta = deltas[index];
      if (delta !== undefined) void emit({ type: 'text_delta', replyId: id, delta });
    }
    const text = this.script.final ?? deltas.join('');
    await session.record({ role: 'assistant', text });
    await emit({ type: 'reply', message: { id, text } });
    return { status: 'done' };
  }

  /** Resolves when at least `count` turns have started. */
  started(count = 1): Promise<void> {
    if (this.turns.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.startWaiters.push({ count, resolve }));
  }

  /** Lets the runner take its next step: emit the next delta, or return the final reply. */
  step(): void {
    this.stepAt(this.released++).resolve();
  }

  /** Lets every step through, now and later (cleanup, so no turn waits forever). */
  releaseAll(): void {
    this.releasedAll = true;
    for (const step of this.steps) step.resolve();
  }

  private stepAt(index: number): Step {
    let step = this.steps[index];
    if (!step) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      step = { promise, resolve };
      this.steps[index] = step;
      if (this.releasedAll) resolve();
    }
    return step;
  }

  /** True when step `index` was allowed; false when the turn was aborted first. */
  private async waitForStep(index: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<false>((resolve) => {
      onAbort = () => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.stepAt(index).promise.then(() => true), aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }
}
