/**
 * The manifest's Provider primitives (CKP §5.2) as a ready router: one provider per primitive,
 * its model described by the catalog when known, its limits, retry policy and fallback chain
 * taken from the manifest as written.
 *
 * CKP 0.2.0 names three protocols. `openai-compatible` and `anthropic-native` map directly;
 * `custom` is read from the endpoint: `local://...` is the in-process engine, and Google's
 * generativelanguage host speaks Gemini. An OpenAI endpoint whose path ends in `/responses`
 * selects the Responses API.
 */
import { type Primitive, type ResolvedClaw, refName } from '../ckp/index.js';
import { BUILTIN_MODELS, defineModel } from './catalog.js';
import type { SecretLookup } from './credentials.js';
import { ModelError } from './errors.js';
import { HttpProvider } from './http-provider.js';
import { type ModelId, modelId, type ProviderId, providerId } from './ids.js';
import type { ProviderLimits } from './limits.js';
import type { RetryPolicy } from './retry.js';
import { ModelRouter } from './router.js';
import type { ModelDescriptor, ModelProvider, Protocol } from './types.js';

type ProviderPrimitive = Primitive<'Provider'>;

export interface ManifestModels {
  router: ModelRouter;
  /** The first declared provider's model: where a `fallback` route starts. */
  primary: ModelId;
  /** Model id per provider name. */
  models: Map<string, ModelId>;
}

export interface ManifestModelDeps {
  secrets: SecretLookup;
  /** Makes the in-process provider for a `local://` endpoint; absent, such a provider is an error. */
  local?: (id: ProviderId, spec: ProviderPrimitive['spec']) => ModelProvider;
  router?: ModelRouter;
}

export function protocolOf(provider: ProviderPrimitive): Protocol {
  const { protocol, endpoint } = provider.spec;
  const url = new URL(endpoint);
  if (url.protocol === 'local:') return 'local';
  if (protocol === 'anthropic-native') return 'anthropic';
  if (protocol === 'openai-compatible') {
    return url.pathname.replace(/\/+$/, '').endsWith('/responses')
      ? 'responses'
      : 'openai-compatible';
  }
  if (url.hostname === 'generativelanguage.googleapis.com') return 'gemini';
  throw new ModelError(
    'invalid_request',
    `provider "${provider.name}": protocol "custom" is supported for local:// and Gemini endpoints only`,
  );
}

export function routerFromManifest(claw: ResolvedClaw, deps: ManifestModelDeps): ManifestModels {
  const router = deps.router ?? new ModelRouter();
  const models = new Map<string, ModelId>();
  for (const provider of claw.providers) models.set(provider.name, modelIdOf(provider));
  for (const provider of claw.providers) {
    const protocol = protocolOf(provider);
    const descriptor = describe(provider, protocol, models.get(provider.name) as ModelId);
    router.register(descriptor, providerFor(provider, protocol, deps), {
      limits: limitsOf(provider),
      retry: retryOf(provider),
      // The loader already rejected dangling references and cycles.
      fallback: (provider.spec.fallback ?? []).flatMap(({ provider_ref }) => {
        const target = models.get(refName(provider_ref));
        return target ? [target] : [];
      }),
    });
  }
  const [first] = claw.providers;
  if (!first) throw new ModelError('invalid_request', 'the manifest declares no provider');
  return { router, primary: models.get(first.name) as ModelId, models };
}

function modelIdOf(provider: ProviderPrimitive): ModelId {
  try {
    return modelId(`${providerId(provider.name.toLowerCase())}/${provider.spec.model}`);
  } catch (error) {
    throw new ModelError(
      'invalid_request',
      `provider "${provider.name}": ${(error as Error).message}`,
    );
  }
}

/** The catalog's facts when it knows the model under this protocol; conservative ones otherwise. */
function describe(provider: ProviderPrimitive, protocol: Protocol, id: ModelId): ModelDescriptor {
  const known = BUILTIN_MODELS.find(
    (m) => m.apiModel === provider.spec.model && m.protocol === protocol,
  );
  const contextWindow = provider.spec.limits?.max_context_window;
  const base = known
    ? { ...known, capabilities: { ...known.capabilities } }
    : // A provider the user declared is meant to run the agent, which needs tools.
      defineModel({ id, protocol, capabilities: { tools: true } });
  if (contextWindow) base.capabilities.contextWindow = contextWindow;
  // Images as the manifest declares them (CKP `capabilities`, default ['text']), not as the
  // catalog remembers the model: the declaration is what the person running it vouches for.
  base.capabilities.vision = takesImages(provider);
  return {
    ...base,
    id,
    provider: providerId(provider.name.toLowerCase()),
    apiModel: provider.spec.model,
  };
}

/** Whether the provider declares the `image` modality (CKP Provider `capabilities`). */
export function takesImages(provider: ProviderPrimitive): boolean {
  return (provider.spec.capabilities ?? ['text']).includes('image');
}

function providerFor(
  provider: ProviderPrimitive,
  protocol: Protocol,
  deps: ManifestModelDeps,
): ModelProvider {
  const id = providerId(provider.name.toLowerCase());
  if (protocol === 'local') {
    if (!deps.local)
      throw new ModelError('invalid_request', 'no local engine available', { provider: id });
    return deps.local(id, provider.spec);
  }
  const endpoint =
    protocol === 'responses'
      ? provider.spec.endpoint.replace(/\/responses\/*$/, '')
      : provider.spec.endpoint;
  return new HttpProvider({
    id,
    protocol,
    endpoint,
    auth: provider.spec.auth.type === 'none' ? 'none' : 'key',
    secretRef: provider.spec.auth.secret_ref,
    secrets: deps.secrets,
    streaming: provider.spec.streaming ?? true,
  });
}

function limitsOf(provider: ProviderPrimitive): ProviderLimits | undefined {
  const limits = provider.spec.limits;
  if (!limits) return undefined;
  return {
    tokensPerDay: limits.tokens_per_day,
    tokensPerRequest: limits.tokens_per_request,
    requestsPerMinute: limits.requests_per_minute,
  };
}

function retryOf(provider: ProviderPrimitive): RetryPolicy | undefined {
  const retry = provider.spec.retry;
  if (!retry) return undefined;
  return {
    maxAttempts: retry.max_attempts ?? 3,
    initialDelayMs: retry.initial_delay_ms ?? 500,
    backoff: retry.backoff ?? 'exponential',
  };
}
