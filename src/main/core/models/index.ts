/** The models module's public surface: what other modules import. */

export type { ModelAccess } from './access.js';
export { viaProvider, viaRouter } from './access.js';
export { StreamAssembler } from './assembler.js';
export { BUILTIN_MODELS, isPriced } from './catalog.js';
export type { Connection } from './connections.js';
export {
  CONNECTION_ENDPOINT,
  CONNECTION_PROTOCOL,
  CONNECTION_TAKES_IMAGES,
  ConnectionBook,
  connectionKeyName,
} from './connections.js';
export type { SecretLookup } from './credentials.js';
export { CONVENTIONAL_ENV } from './credentials.js';
export type { Embedder } from './embedder.js';
export type { ModelErrorCode } from './errors.js';
export { isModelError, ModelError } from './errors.js';
export type { ContextWindow } from './fit-request-to-context.js';
export { describeNotice, fitRequestToContext, smallContextNote } from './fit-request-to-context.js';
export { routerFromManifest, takesImages } from './from-manifest.js';
export type { HttpProtocol } from './http-provider.js';
export { ADAPTERS, HttpProvider } from './http-provider.js';
export type { ProviderId } from './ids.js';
export { providerId } from './ids.js';
export { IMAGE_TOKEN_ESTIMATE } from './limits.js';
export { listServerModels } from './list-models.js';
export { OutsideSpend } from './outside-spend.js';
export { describeTools, withTextToolCalls } from './text-tools.js';
export { toWireNames, WIRE_TOOL_NAME, wireToolName, withCanonicalNames } from './tool-names.js';
export type {
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ProviderOptions,
} from './types.js';
