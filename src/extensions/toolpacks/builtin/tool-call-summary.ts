/** What the tool activity keeps of a call: a summary of its arguments, and why it failed. No contents. */

/**
 * A tool's expected failure is `{ ok: false, reason }`; a command (`shell.exec`) that ran but
 * exited non-zero or was killed by a signal failed too, as the shell panel counts it. Anything
 * else is a completed call.
 */
export function failureReason(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const fields = result as { ok?: unknown; reason?: unknown; exitCode?: unknown; signal?: unknown };
  if (fields.ok === false) return typeof fields.reason === 'string' ? fields.reason : 'failed';
  if (typeof fields.signal === 'string') return `killed by ${fields.signal}`;
  if (typeof fields.exitCode === 'number' && fields.exitCode !== 0) return `exit code ${fields.exitCode}`;
  return undefined;
}

/**
 * What a call was about, from its arguments: a file tool's path (a patch's, with its edit count),
 * a command's first line, a URL's origin and path (no credentials, query or fragment). Other tools
 * get no summary.
 */
export function summarizeInput(tool: string, input: unknown): string {
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  switch (tool) {
    case 'file.read':
    case 'file.write':
      return text('path') ?? 'path not recorded';
    case 'file.patch': {
      const edits = Array.isArray(args.edits) ? args.edits.length : 0;
      return `${text('path') ?? 'path not recorded'} (${edits} ${edits === 1 ? 'edit' : 'edits'})`;
    }
    case 'shell.exec':
      return firstLine(text('command') ?? 'command not recorded');
    case 'web.fetch':
      return urlOriginAndPath(text('url'));
    default:
      return '';
  }
}

function firstLine(command: string): string {
  const lines = command.trim().split('\n');
  const first = (lines[0] ?? '').trim();
  return lines.length > 1 ? `${first} …(+${lines.length - 1} lines)` : first;
}

function urlOriginAndPath(url: string | undefined): string {
  if (url === undefined) return 'url not recorded';
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'not a URL';
  }
}
