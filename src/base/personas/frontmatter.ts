import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';

/** One thing wrong in a frontmatter file: `file:line: field: message`. */
export interface FrontmatterProblem {
  file: string;
  line: number;
  /** The field (or `frontmatter` when the block itself is wrong). */
  field: string;
  message: string;
}

/** What a field must be: a string, a list of strings, or either. */
export type FieldKind = 'string' | 'list' | 'string-or-list' | 'any';

export interface FieldRule {
  kind: FieldKind;
  required?: boolean;
  /** Each string (or list item) must match; `hint` says what it must be. */
  pattern?: RegExp;
  /** What the field must be, in the words of the error (`must be ${hint}`). */
  hint: string;
}

export interface Frontmatter {
  /** The fields that passed their rules. */
  fields: Record<string, unknown>;
  /** The line of each field, for the caller's own checks (`id` against the agent's key). */
  lines: Record<string, number>;
  /** The Markdown after the closing `---`. */
  body: string;
}

export type FrontmatterResult =
  | { ok: true; value: Frontmatter }
  | { ok: false; problems: FrontmatterProblem[] };

/** `agents/ops.md:4: tools: must be a list of tool names` (line 0: the file as a whole). */
export function describeProblem(problem: FrontmatterProblem): string {
  const line = problem.line > 0 ? `:${problem.line}` : '';
  return `${problem.file}${line}: ${problem.field}: ${problem.message}`;
}

/**
 * Parses `---`, YAML, `---`, then the Markdown body. Strict: bad YAML, a missing closing `---`,
 * an unknown field, a field of the wrong type and a missing required field are all refused, each
 * naming the file (as given: the caller's path, for the error), the line and the field.
 */
export function parseFrontmatter(
  text: string,
  file: string,
  rules: Readonly<Record<string, FieldRule>>,
): FrontmatterResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const problem = (line: number, field: string, message: string): FrontmatterResult => ({
    ok: false,
    problems: [{ file, line, field, message }],
  });
  if (lines[0]?.trim() !== '---') return problem(1, 'frontmatter', "must start with a '---' line");
  const close = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (close < 0) return problem(1, 'frontmatter', "has no closing '---' line");
  const yamlText = lines.slice(1, close).join('\n');
  const counter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter: counter, uniqueKeys: true });
  // Line 1 of the YAML is line 2 of the file.
  const lineOf = (offset: number) => counter.linePos(offset).line + 1;
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => ({
        file,
        line: lineOf(error.pos[0]),
        field: 'frontmatter',
        message: `bad YAML: ${error.message.split('\n')[0]}`,
      })),
    };
  }
  const body = lines.slice(close + 1).join('\n');
  if (document.contents === null) return checkFields([], file, rules, body);
  if (!isMap(document.contents)) return problem(2, 'frontmatter', 'must be a YAML mapping of fields');
  const entries = document.contents.items.map((pair) => ({
    key: isScalar(pair.key) ? String(pair.key.value) : String(pair.key),
    line: lineOf((isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? 0),
    value: (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() ?? (pair.value as unknown),
  }));
  return checkFields(entries, file, rules, body);
}

function checkFields(
  entries: { key: string; line: number; value: unknown }[],
  file: string,
  rules: Readonly<Record<string, FieldRule>>,
  body: string,
): FrontmatterResult {
  const problems: FrontmatterProblem[] = [];
  const fields: Record<string, unknown> = {};
  const lines: Record<string, number> = {};
  for (const { key, line, value } of entries) {
    lines[key] = line;
    const rule = rules[key];
    if (rule === undefined) {
      problems.push({
        file,
        line,
        field: key,
        message: `unknown field (known: ${Object.keys(rules).join(', ')})`,
      });
      continue;
    }
    if (!fits(value, rule)) problems.push({ file, line, field: key, message: `must be ${rule.hint}` });
    else fields[key] = value;
  }
  for (const [key, rule] of Object.entries(rules)) {
    if (rule.required && !entries.some((entry) => entry.key === key))
      problems.push({ file, line: 1, field: key, message: `is required (${rule.hint})` });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { fields, lines, body } };
}

function fits(value: unknown, rule: FieldRule): boolean {
  const isText = (item: unknown) =>
    typeof item === 'string' && item.trim() !== '' && (rule.pattern === undefined || rule.pattern.test(item));
  const isList = Array.isArray(value) && value.length > 0 && value.every(isText);
  if (rule.kind === 'any') return true;
  if (rule.kind === 'string') return isText(value);
  if (rule.kind === 'list') return isList;
  return isText(value) || isList;
}
