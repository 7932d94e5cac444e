/**
 * Where a provider's API key comes from (the secrets module implements `SecretLookup`).
 * Precedence: an explicit key (CLI flag, tests) -> the provider's `secret_ref` through the
 * injected lookup -> the provider's conventional environment variable -> none.
 */
import type { Protocol } from './types.js';

export interface SecretLookup {
  /** The value stored under this name, or undefined when no backend has it. */
  resolve(name: string): Promise<string | undefined>;
}

/** Read-only lookup in an environment: how tests and CI reach providers without a secret store. */
export function envLookup(env: NodeJS.ProcessEnv = process.env): SecretLookup {
  return {
    resolve: async (name) => {
      const value = env[name];
      return value === undefined || value === '' ? undefined : value;
    },
  };
}

export const CONVENTIONAL_ENV: Partial<Record<Protocol, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
  responses: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

export interface CredentialSource {
  explicit?: string;
  secretRef?: string;
  protocol: Protocol;
  lookup: SecretLookup;
}

export async function resolveApiKey(source: CredentialSource): Promise<string | undefined> {
  if (source.explicit) return source.explicit;
  if (source.secretRef) {
    const value = await source.lookup.resolve(source.secretRef);
    if (value) return value;
  }
  const conventional = CONVENTIONAL_ENV[source.protocol];
  return conventional ? source.lookup.resolve(conventional) : undefined;
}
