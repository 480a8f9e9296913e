/** The message of anything thrown, for a log line or a reply: `error.message`, else its string form. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
