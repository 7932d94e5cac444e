/** The CKP manifest layer: what other modules import. */

export { CKP_ERRORS, isCkpErrorCode } from './codes.js';
export type { ConformanceLevel } from './conformance.js';
export {
  initUserManifest,
  loadActiveClaw,
  loadOptionsFor,
  ManifestExistsError,
  type ManifestPlaces,
  resolveActiveManifest,
  resourcesDirOf,
} from './default-manifest.js';

export { checkClaw } from './loader.js';
export { renderIssues, renderResolvedYaml, resolvedView, secretNamesOf } from './render.js';
export {
  autonomyOf,
  type EffectivePolicyRule,
  isLocalEngineProvider,
  type Primitive,
  policyRules,
  providerChain,
  type ResolvedClaw,
  refName,
  toolCategory,
} from './resolved.js';
export {
  type ChannelSpec,
  type MemoryStore,
  SPEC_SCHEMAS,
  type SwarmSpec,
  type TelemetrySpec,
  type WorldModelSpec,
} from './schemas.js';
export { type SwarmTree, swarmTree } from './swarm-tree.js';

export {
  CKP_PROTOCOL_VERSIONS,
  checkProtocolVersion,
  negotiateProtocolVersion,
  parseSemver,
} from './version.js';
