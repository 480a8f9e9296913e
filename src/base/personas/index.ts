export {
  describeProblem,
  type FieldRule,
  type Frontmatter,
  type FrontmatterProblem,
  type FrontmatterResult,
  parseFrontmatter,
} from './frontmatter.js';
export { PERSONA_FIELDS, type Persona, type PersonaResult, readPersonaFile, shownPath } from './persona.js';
export { SKILL_FIELDS, type Skill, type SkillScan, scanSkills, skillCatalogText } from './skills.js';
