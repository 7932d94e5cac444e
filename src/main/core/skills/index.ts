/** The skills module's public surface: what other modules import. */
export { SkillError } from './errors.js';
export type { Skill } from './registry.js';
export { parseTrust, renderSkill, SkillRegistry, TRUST_LEVELS } from './registry.js';
