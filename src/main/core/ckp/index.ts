/** The CKP manifest layer: what other modules import. */

export { CKP_ERRORS, isCkpErrorCode } from './codes.js';
export * from './conformance.js';
export * from './default-manifest.js';
export * from './issues.js';
export { type CheckResult, checkClaw, type LoadOptions, loadClaw } from './loader.js';
export * from './render.js';
export * from './resolved.js';
export type * from './schemas.js';
export { MANIFEST_SLOTS, PRIMITIVE_KINDS, SPEC_SCHEMAS } from './schemas.js';
export * from './swarm-tree.js';
export * from './uri.js';
export * from './version.js';
