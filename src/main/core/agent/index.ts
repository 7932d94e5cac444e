/** The agent's composition root: the one way any surface gets an agent. */
export {
  type Agent,
  type AgentOptions,
  DEFAULT_SYSTEM,
  DEFAULT_TOOLS,
  openAgent,
} from './agent.js';
export { AutonomySwitch } from './autonomy.js';
export { clampBudget } from './delegation.js';
export {
  decodeImages,
  ImageError,
  type ImageErrorCode,
  type ImageFile,
  imageBlocks,
} from './images.js';
export { openLocalEngine } from './local-engine.js';
export {
  kindOf,
  type LocalModelSettings,
  type ModelChoice,
  type ModelKind,
  type ToolFormat,
} from './model-choice.js';
export { type ModelOption, type ModelOptionGroup, ModelOptions } from './model-options.js';
export { IMAGE_PLACEHOLDER, type ModelSwitch, withoutImages } from './model-switch.js';
export { type AgentRecords, openAgentRecords } from './records.js';
