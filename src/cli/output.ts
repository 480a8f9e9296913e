/** A command's problem: on stderr, and the command exits 1 (set, not exited: output is flushed first). */
export function printProblem(message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}

/** A command's result as indented JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
