import { createTwoFilesPatch } from 'diff';
import { ConfigError, SwitchboardError } from '../../errors/index.js';
import { parseJsonc } from '../load.js';
import { collectSecretValues, createSecretScrubber, redactConfig, type SecretPath } from '../redact.js';
import { editConfigText } from './edit-text.js';

/**
 * The unified diff between two config texts as an owner reviews it: comments and formatting as in
 * the files, every secret replaced by the REDACTED placeholder (by its schema path) and every secret
 * value of either file scrubbed from the rest of the text too (a token pasted into a comment).
 */

export interface ConfigDiffOptions {
  /** The file's name in the diff header. */
  name: string;
  secretPaths: SecretPath[];
  /** Removes secret values the process knows of (the logger's scrubber), besides those of the two files. */
  scrub?: ((text: string) => string) | undefined;
}

/** `''` stands for an absent file. The diff has no `Index:`/`===` lines; '' when the texts are equal. */
export function diffConfigTexts(before: string, after: string, options: ConfigDiffOptions): string {
  if (before === after) return '';
  const sides = [readSide(before, options), readSide(after, options)] as const;
  const secrets = sides.flatMap((side) => side.secrets);
  const ownScrub = createSecretScrubber(secrets);
  const scrub = (text: string) => ownScrub(options.scrub ? options.scrub(text) : text);
  const patch = createTwoFilesPatch(
    `${options.name} (before)`,
    `${options.name} (after)`,
    scrub(sides[0].text),
    scrub(sides[1].text),
    undefined,
    undefined,
    { context: 2 },
  );
  return patch.replace(/^={10,}\r?\n/m, '').trimEnd();
}

/**
 * One side: the text with secrets replaced where they are, or a line saying why it is not shown
 * (a text that does not parse has no known secret paths, so none of it is shown).
 */
function readSide(text: string, options: ConfigDiffOptions): { text: string; secrets: string[] } {
  if (text.trim() === '') return { text: '', secrets: [] };
  let object: Record<string, unknown>;
  try {
    object = parseJsonc(text, undefined) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { text: '// (this file did not parse; it is not shown)\n', secrets: [] };
  }
  const secrets = collectSecretValues(object, options.secretPaths);
  const redacted = redactConfig(object, options.secretPaths);
  try {
    return { text: editConfigText(text, redacted).text, secrets };
  } catch (error) {
    // A text jsonc-parser cannot edit faithfully (duplicate keys): its values, without comments.
    if (!(error instanceof SwitchboardError)) throw error;
    return { text: `${JSON.stringify(redacted, null, 2)}\n`, secrets };
  }
}

/**
 * How much of a diff an approval request shows: it goes into one chat message with buttons (Slack's
 * section text holds 3000 characters); the request's summary names every changed and removed path.
 */
export const REVIEW_DIFF_LIMIT = { lines: 40, chars: 2000 } as const;

/** The diff's first lines within the limit, and a line saying how many more there are. */
export function clipDiff(diff: string, limit: { lines: number; chars: number }): string {
  const lines = diff.split('\n');
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (kept.length >= limit.lines || chars + line.length + 1 > limit.chars) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const rest = lines.length - kept.length;
  return rest === 0
    ? diff
    : `${kept.join('\n')}\n… ${rest} more line${rest === 1 ? '' : 's'} of the diff not shown`;
}
