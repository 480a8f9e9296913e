/**
 * One part of a gateway (`storage`, `channels`, `turns`, `http`…): it builds and starts its
 * services from what the parts before it started, and stops them. The composition root lists the
 * parts; a `PartList` starts them in that order and stops them in reverse.
 */
export interface Part<Context, Started> {
  readonly name: string;
  /** Builds and starts; the later parts are handed what it returns. */
  start(context: Context): Promise<Started>;
  /** Stops what `start` built, also after a start that failed halfway through. */
  stop(): Promise<void>;
}

/** The parts one gateway started, in order: `stop` ends them in reverse, each once. */
export class PartList {
  readonly #started: Part<never, unknown>[] = [];
  readonly #stopping = new AbortController();

  /** Aborted as the stop begins, before any part stops: parts stop taking new work on it. */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /** Starts `part`, recorded before it starts: a start that fails halfway is stopped too. */
  start<Context, Started>(part: Part<Context, Started>, context: Context): Promise<Started> {
    this.#started.push(part as Part<never, unknown>);
    return part.start(context);
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    for (let part = this.#started.pop(); part; part = this.#started.pop()) await part.stop();
  }
}
