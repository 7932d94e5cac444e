/** The agent's composition root: the one way any surface gets an agent. */
export { type Agent, type AgentOptions, DEFAULT_TOOLS, openAgent } from './agent.js';

export { clampBudget } from './delegation.js';
export { decodeImages, ImageError, type ImageFile, imageBlocks } from './images.js';
export { openLocalEngine } from './local-engine.js';
export type { ModelChoice } from './model-choice.js';
export { ModelOptions } from './model-options.js';
export type { ModelSwitch } from './model-switch.js';
export { openAgentRecords } from './records.js';
