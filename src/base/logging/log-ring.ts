/** One log line as the ring keeps it: the serialized pino JSON, secrets already scrubbed, and its number. */
export interface RecentLogLine {
  /** 1, 2, 3, … in the order written since the process started: `after` asks for the newer ones. */
  seq: number;
  line: string;
}

/**
 * The newest log lines of this process (a fixed number; the oldest go first), for the control UI's
 * Logs page. It holds what the log file would: lines scrubbed of every secret.
 */
export class LogRing {
  readonly #limit: number;
  #lines: RecentLogLine[] = [];
  #next = 1;

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  push(line: string): void {
    this.#lines.push({ seq: this.#next++, line: line.endsWith('\n') ? line.slice(0, -1) : line });
    if (this.#lines.length > this.#limit) this.#lines.splice(0, this.#lines.length - this.#limit);
  }

  /** The lines newer than `after` (all kept ones without it), oldest first. */
  since(after = 0): RecentLogLine[] {
    const first = this.#lines.findIndex((entry) => entry.seq > after);
    return first < 0 ? [] : this.#lines.slice(first);
  }
}
