import { errorText } from '../../base/errors/index.js';

/** How many stack frames of a crashed tool the model sees. */
export const MAX_STACK_FRAMES = 8;

/**
 * What the model sees of a tool that threw, as the tool contract of the original notes shows it:
 * `Tool <name> failed: <message>`, then `Stack:` and at most `MAX_STACK_FRAMES` frames, with paths
 * relative to `root` (no home or install directory) and everything passed through `scrub` (the
 * gateway's secret values). Pure.
 */
export function crashReport(
  name: string,
  error: unknown,
  options: { root: string; scrub?: (text: string) => string },
): string {
  const scrub = options.scrub ?? ((text: string) => text);
  const frames = (error instanceof Error ? (error.stack ?? '') : '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, MAX_STACK_FRAMES)
    .map((line) => `  ${relativePaths(line, options.root)}`);
  const head = `Tool ${name} failed: ${errorText(error)}`;
  return scrub(frames.length === 0 ? head : [head, 'Stack:', ...frames].join('\n'));
}

function relativePaths(line: string, root: string): string {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return line.replaceAll(`file://${prefix}`, '').replaceAll(prefix, '');
}
