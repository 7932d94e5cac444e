/**
 * Every stored secret's value, registered for redaction before the first tool runs. Without
 * this the scanner knows only the values this process happened to read (a provider key it
 * resolved), so a vault or keychain secret the run never used passes through tool output to
 * the model, the pushed events and the database unredacted.
 */
import type { Redactor } from '../redaction/index.js';
import type { SecretStore } from './store.js';
import type { BackendId } from './types.js';
import { SecretsError } from './types.js';

export interface KnownSecretsReport {
  /** How many names were registered (their values stay in the redactor, never here). */
  registered: number;
  /** Backends that cannot be read by this process (no passphrase, no keychain): nothing to
   * screen from them, and nothing from them can be used by this process either. */
  unavailable: Array<{ backend: BackendId; reason: string }>;
}

/**
 * Registers the value of every name in every available backend of `store` (and of `declared`
 * names, e.g. a manifest's `secret_ref`s that only live in the environment) with `redactor`.
 * A backend that is available but fails to read (a wrong passphrase, a tampered vault) is an
 * error: running on would leave its secrets unscreened.
 */
export async function loadKnownSecrets(
  store: SecretStore,
  redactor: Pick<Redactor, 'register'>,
  declared: Iterable<string> = [],
): Promise<KnownSecretsReport> {
  const names = new Set<string>();
  const unavailable: KnownSecretsReport['unavailable'] = [];
  for (const backend of store.backends) {
    const state = await backend.availability();
    if (!state.available) {
      unavailable.push({ backend: backend.id, reason: state.reason });
      continue;
    }
    try {
      for (const name of await backend.list()) {
        const value = await backend.get(name);
        if (value === undefined) continue;
        redactor.register(value, name);
        names.add(name);
      }
    } catch (cause) {
      throw new SecretsError(
        'unavailable',
        `cannot read ${backend.label} to screen tool output for its secrets: ${reasonOf(cause)}`,
        { cause },
      );
    }
  }
  for (const name of declared) {
    if (names.has(name)) continue;
    // Through the chain, for names no backend lists (the environment lists only a few).
    const found = await store.get(name).catch(() => undefined);
    if (!found) continue;
    redactor.register(found.value, name);
    names.add(name);
  }
  return { registered: names.size, unavailable };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
