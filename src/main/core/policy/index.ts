/** The policy module's public surface: what other modules import. */

export type { ApprovalBroker, PendingApproval, Verdict } from './broker.js';
export { sessionGrantText } from './broker.js';
export { commandLineOf } from './command-match.js';
export { destructiveReasons } from './command-risk.js';
export type { Governance } from './from-manifest.js';
export { governanceFromManifest, manifestToolFacts } from './from-manifest.js';
export type { ApprovalHook, PolicyHook } from './hooks.js';
export { originGuarded } from './origin-guard.js';
export type { ToolFacts } from './rules.js';
export { patternMatches } from './rules.js';
export type { Findings } from './scanner.js';
export { ContentScanner } from './scanner.js';
export type { SessionScopeSpec } from './session-scope.js';
