/** The policy module's public surface: what other modules import. */

export type { ApprovalBroker, PendingApproval, Verdict } from './broker.js';
export { DEFAULT_APPROVAL_TIMEOUT_MS, sessionGrantText } from './broker.js';
export { commandLineOf } from './command-match.js';
export { destructiveReasons, runsReasons } from './command-risk.js';
export type { Governance } from './from-manifest.js';
export { governanceFromManifest, inputTimeoutMs, manifestToolFacts } from './from-manifest.js';
export type {
  ApprovalHook,
  InputEvents,
  PolicyContext,
  PolicyDecision,
  PolicyHook,
  Prediction,
} from './hooks.js';
export type {
  FormReading,
  InputContent,
  InputField,
  InputForm,
  InputFormat,
} from './input-form.js';
export {
  answerSchema,
  checkInputAnswer,
  INPUT_FORM_LIMITS,
  prepareAnswerCheck,
  readInputForm,
} from './input-form.js';
export type {
  InputAnswer,
  InputOutcome,
  InputRequest,
  InputResolveResult,
  PendingInput,
} from './inputs.js';
export { InputBroker } from './inputs.js';
export { originGuarded } from './origin-guard.js';
export type { ToolFacts } from './rules.js';
export { patternMatches } from './rules.js';
export type { Findings } from './scanner.js';
export { ContentScanner } from './scanner.js';
export type { SessionScopeSpec } from './session-scope.js';
