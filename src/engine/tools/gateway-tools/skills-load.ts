import { Type } from '@sinclair/typebox';
import type { Skill } from '../../../base/personas/index.js';
import type { Tool } from '../types.js';

const SkillsLoadParameters = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Name of a skill listed under "Skills" in your instructions.',
    }),
  },
  { additionalProperties: false },
);

export interface SkillsLoadOptions {
  /** The skills an agent has (its `skills`, or all): scanned at the start, fixed until a restart. */
  skillsFor(agentId: string): readonly Skill[];
}

/**
 * `skills.load`: the body of one of the agent's skills and its resource files (relative paths,
 * read with the file tools where the agent has them). A skill the agent does not have is unknown.
 */
export function createSkillsLoadTool(options: SkillsLoadOptions): Tool<typeof SkillsLoadParameters> {
  return {
    name: 'skills.load',
    description:
      "Load a skill's full instructions before a task it fits: returns its body and the list of its resource files.",
    parameters: SkillsLoadParameters,
    readOnly: true,
    risk: ['read'],
    execute(input, context) {
      const skills = options.skillsFor(context.agentId);
      const skill = skills.find((candidate) => candidate.name === input.name);
      if (!skill) {
        const have = skills.map((candidate) => candidate.name).join(', ') || 'none';
        return { ok: false, reason: `Unknown skill: ${input.name} (yours: ${have})` };
      }
      return {
        ok: true,
        name: skill.name,
        body: skill.body,
        directory: skill.directory,
        resources: skill.resources,
      };
    },
  };
}
