/** The policy module's public surface: what other modules import. */

export {
  type ApprovalBroker,
  type ApprovalVerdict,
  type PendingApproval,
  sessionGrantText,
} from './broker.js';
export { commandLineOf } from './command-match.js';
export { destructiveReasons, runsReasons } from './command-risk.js';
export {
  type Governance,
  governanceFromManifest,
  inputTimeoutMs,
  manifestToolFacts,
} from './from-manifest.js';
export type {
  ApprovalHook,
  InputEvents,
  PolicyContext,
  PolicyDecision,
  PolicyHook,
  Prediction,
} from './hooks.js';
export { type InputContent, type InputField, readInputForm } from './input-form.js';
export {
  type InputAnswer,
  InputBroker,
  type InputOutcome,
  type InputRequest,
  type InputResolveResult,
  type PendingInput,
} from './inputs.js';
export { originGuarded } from './origin-guard.js';
export { patternMatches, type ToolFacts } from './rules.js';
export { ContentScanner, type Findings } from './scanner.js';
export type { SessionScopeSpec } from './session-scope.js';
