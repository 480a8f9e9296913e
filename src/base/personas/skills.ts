import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeProblem, type FieldRule, parseFrontmatter } from './frontmatter.js';

/** Anthropic's SKILL.md fields: `name` and `description`; the optional others are accepted and not used. */
export const SKILL_FIELDS: Readonly<Record<string, FieldRule>> = {
  name: {
    kind: 'string',
    required: true,
    pattern: /^[a-z0-9][a-z0-9_-]{0,63}$/,
    hint: 'the skill name (lowercase letters, digits, `_`, `-`)',
  },
  description: { kind: 'string', required: true, hint: 'a sentence saying when to use the skill' },
  license: { kind: 'string', hint: 'a license name' },
  'allowed-tools': { kind: 'string-or-list', hint: 'a tool name or a list of them' },
  metadata: { kind: 'any', hint: 'anything' },
  version: { kind: 'any', hint: 'anything' },
};

/** A skill found on disk: what the prompt lists (name, description) and what `skills.load` returns. */
export interface Skill {
  name: string;
  description: string;
  /** The absolute folder that holds its SKILL.md. */
  directory: string;
  body: string;
  /** Its other files, relative to `directory`, sorted. */
  resources: string[];
}

export interface SkillScan {
  skills: Skill[];
  /** Each refused SKILL.md or unreadable folder, as `file:line: field: message`. */
  problems: string[];
}

/**
 * Scans each folder for `<folder>/<skill>/SKILL.md`. A bad SKILL.md is refused and reported; the
 * others still load. A folder that does not exist has no skills (`required` ones are reported).
 * The first of two skills with one name wins; the second is reported.
 */
export async function scanSkills(
  folders: readonly { directory: string; shownAs: string; required: boolean }[],
): Promise<SkillScan> {
  const scan: SkillScan = { skills: [], problems: [] };
  for (const folder of folders) {
    let entries: string[];
    try {
      entries = (await readdir(folder.directory, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || folder.required) scan.problems.push(`${folder.shownAs}: cannot read: ${code}`);
      continue;
    }
    for (const entry of entries) await readSkill(folder, entry, scan);
  }
  return scan;
}

async function readSkill(folder: { directory: string; shownAs: string }, entry: string, scan: SkillScan) {
  const directory = path.join(folder.directory, entry);
  const shownAs = path.join(folder.shownAs, entry, 'SKILL.md');
  let text: string;
  try {
    text = await readFile(path.join(directory, 'SKILL.md'), 'utf8');
  } catch {
    return; // A folder without SKILL.md is not a skill.
  }
  const parsed = parseFrontmatter(text, shownAs, SKILL_FIELDS);
  if (!parsed.ok) {
    scan.problems.push(...parsed.problems.map(describeProblem));
    return;
  }
  const name = String(parsed.value.fields.name);
  if (scan.skills.some((skill) => skill.name === name)) {
    scan.problems.push(`${shownAs}:2: name: skill "${name}" is defined twice (the first found is kept)`);
    return;
  }
  scan.skills.push({
    name,
    description: String(parsed.value.fields.description),
    directory,
    body: parsed.value.body.trim(),
    resources: await listResources(directory),
  });
}

async function listResources(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath ?? entry.path, entry.name)))
    .filter((file) => file !== 'SKILL.md')
    .sort();
}

/** The skills part of an agent's instructions: names and descriptions only (progressive disclosure). */
export function skillCatalogText(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = [
    'Skills: instructions for particular tasks. Before a task one of them fits, call skills.load with its name and follow what it says.',
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ];
  return lines.join('\n');
}
