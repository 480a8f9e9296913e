import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type FieldRule, type FrontmatterProblem, parseFrontmatter } from './frontmatter.js';

const SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
// The allowlist syntax of `agents.<id>.tools`: exact names, `namespace.*` or `*`.
const TOOL_NAME = /^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(\.\*)?)$/;

/** The fields a persona file may have; anything else is refused. */
export const PERSONA_FIELDS: Readonly<Record<string, FieldRule>> = {
  id: { kind: 'string', pattern: SLUG, hint: 'the agent id (lowercase letters, digits, `_`, `-`)' },
  name: { kind: 'string', hint: 'a name (the agent’s display name)' },
  description: { kind: 'string', hint: 'a sentence saying what the agent is for' },
  tools: { kind: 'list', pattern: TOOL_NAME, hint: 'a list of tool names' },
  model: { kind: 'string-or-list', hint: 'a model name or a list of model names' },
  skills: { kind: 'list', pattern: SLUG, hint: 'a list of skill names' },
};

/** A persona file read: its fields as the agent config spells them, and the file's problems. */
export interface Persona {
  id?: string;
  /** The line of `id` in the file. */
  idLine: number;
  /** The config fields it supplies: `displayName`, `tools`, `model`, `skills`, `systemPrompt`. */
  agent: Record<string, unknown>;
  description?: string;
}

export type PersonaResult = { ok: true; value: Persona } | { ok: false; problems: FrontmatterProblem[] };

/**
 * Reads a persona file (YAML frontmatter, then the Markdown system prompt), synchronously: the
 * config load is synchronous and a persona is one small file. `shownAs` is the path the errors name.
 */
export function readPersonaFile(file: string, shownAs: string): PersonaResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      ok: false,
      problems: [{ file: shownAs, line: 0, field: 'persona', message: `cannot read: ${reason}` }],
    };
  }
  const parsed = parseFrontmatter(text, shownAs, PERSONA_FIELDS);
  if (!parsed.ok) return parsed;
  const { fields, body } = parsed.value;
  const agent: Record<string, unknown> = {};
  if (fields.name !== undefined) agent.displayName = fields.name;
  for (const key of ['tools', 'model', 'skills'] as const)
    if (fields[key] !== undefined) agent[key] = fields[key];
  if (body.trim() !== '') agent.systemPrompt = body.trim();
  return {
    ok: true,
    value: {
      agent,
      idLine: parsed.value.lines.id ?? 1,
      ...(typeof fields.id === 'string' ? { id: fields.id } : {}),
      ...(typeof fields.description === 'string' ? { description: fields.description } : {}),
    },
  };
}

/** The path a persona's errors name: relative to the config's folder when inside it. */
export function shownPath(file: string, baseDir: string): string {
  const relative = path.relative(baseDir, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
