import path from 'node:path';
import { type Config, DEFAULT_CONFIG_PATH } from '../base/config/index.js';
import type { ConfigIssue } from '../base/errors/index.js';
import { type Skill, scanSkills, shownPath, skillCatalogText } from '../base/personas/index.js';
import { createAllowlist } from '../engine/tools/index.js';

/** The skills of one start: scanned once (a restart rescans), then fixed. */
export interface AgentSkills {
  /** Every skill found. */
  all: readonly Skill[];
  /** The skills an agent gets: its `skills` names, or all. */
  skillsFor(agentId: string): readonly Skill[];
  /** Refused SKILL.md files, missing folders, unknown names in `agents.<id>.skills`: warnings, never a stop. */
  problems: ConfigIssue[];
}

/** Scans `skills.dirs` (relative to the config file); the default `skills` folder may be absent. */
export async function loadAgentSkills(config: Config, configPath: string | undefined): Promise<AgentSkills> {
  const baseDir = path.dirname(path.resolve(configPath ?? DEFAULT_CONFIG_PATH));
  const folders = config.skills.dirs.map((dir) => {
    const directory = path.resolve(baseDir, dir);
    return { directory, shownAs: shownPath(directory, baseDir), required: dir !== 'skills' };
  });
  const scan = await scanSkills(folders);
  const problems: ConfigIssue[] = scan.problems.map((message) => ({ path: '/skills/dirs', message }));
  const byName = new Map(scan.skills.map((skill) => [skill.name, skill]));
  for (const [agentId, agent] of Object.entries(config.agents)) {
    (agent.skills ?? []).forEach((name, index) => {
      if (!byName.has(name))
        problems.push({
          path: `/agents/${agentId}/skills/${index}`,
          message: `names skill "${name}", which was not found (have: ${[...byName.keys()].join(', ') || 'none'})`,
        });
    });
  }
  return {
    all: scan.skills,
    problems,
    skillsFor(agentId) {
      const names = config.agents[agentId]?.skills;
      if (names === undefined) return scan.skills;
      return scan.skills.filter((skill) => names.includes(skill.name));
    },
  };
}

/**
 * Each agent's instructions with its skill catalog (names and descriptions only) appended, for
 * the agents whose tools allow `skills.load`: the body reaches the model only through that tool.
 */
export function withSkillCatalogs(
  config: Config,
  instructions: ReadonlyMap<string, string>,
  skills: AgentSkills,
): Map<string, string> {
  const result = new Map(instructions);
  for (const [agentId, agent] of Object.entries(config.agents)) {
    if (!createAllowlist(agent.tools)('skills.load')) continue;
    const catalog = skillCatalogText(skills.skillsFor(agentId));
    if (catalog === '') continue;
    const own = result.get(agentId)?.trim();
    result.set(agentId, own ? `${own}\n\n${catalog}` : catalog);
  }
  return result;
}
