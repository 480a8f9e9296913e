/** The largest answer (one JSON-RPC line) a stdio server may send: the SDK's own limit. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/** `answer over 10 MB from MCP server "<name>"`: what the call, the log and the status say. */
export function answerTooLarge(server: string, maxBytes = MAX_ANSWER_BYTES): string {
  return `answer over ${Math.round(maxBytes / (1024 * 1024))} MB from MCP server "${server}"`;
}
