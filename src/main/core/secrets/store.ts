import type { SecretLookup } from '../models/index.js';
import type { Redactor } from '../redaction/index.js';
import type { Availability, BackendId, SecretBackend } from './types.js';
import { assertValidSecretName, SecretsError } from './types.js';

export interface BackendStatus {
  id: BackendId;
  label: string;
  writable: boolean;
  availability: Availability;
}

export interface SecretEntry {
  name: string;
  backend: BackendId;
  /** True when an earlier backend in the chain has the same name (this copy is not used). */
  shadowed: boolean;
}

export interface FoundSecret {
  value: string;
  backend: BackendId;
}

export interface MigrationReport {
  to: BackendId;
  moved: Array<{ name: string; from: BackendId }>;
  /** Left where they are, with why (e.g. the target holds a different value). */
  skipped: Array<{ name: string; from: BackendId; reason: string }>;
}

/**
 * The secrets chain: backends in priority order (keychain, safeStorage vault, passphrase vault,
 * environment). Reads take the first backend that has the name; writes go to the first
 * available writable backend. Every value read or written is registered for redaction.
 */
export class SecretStore implements SecretLookup {
  /** The redactors told of every value this store reads or writes (the agent's, when open). */
  private readonly redactors = new Set<Pick<Redactor, 'register'>>();

  constructor(
    readonly backends: readonly SecretBackend[],
    redactor?: Pick<Redactor, 'register'>,
  ) {
    if (redactor) this.redactors.add(redactor);
  }

  /** From now on every value read or written is registered with `redactor` too. */
  redactInto(redactor: Pick<Redactor, 'register'>): void {
    this.redactors.add(redactor);
  }

  private register(value: string, name: string): void {
    for (const redactor of this.redactors) redactor.register(value, name);
  }

  async status(): Promise<BackendStatus[]> {
    return Promise.all(
      this.backends.map(async (b) => ({
        id: b.id,
        label: b.label,
        writable: b.writable,
        availability: await b.availability(),
      })),
    );
  }

  /** Where `set` writes by default: the first available writable backend. */
  async primary(): Promise<SecretBackend | undefined> {
    for (const backend of this.backends) {
      if (backend.writable && (await backend.availability()).available) return backend;
    }
    return undefined;
  }

  async get(name: string): Promise<FoundSecret | undefined> {
    for (const backend of await this.available()) {
      const value = await backend.get(name);
      if (value !== undefined) {
        this.register(value, name);
        return { value, backend: backend.id };
      }
    }
    return undefined;
  }

  /** `SecretLookup` for the model layer: a `secret_ref` resolved through the chain. */
  async resolve(name: string): Promise<string | undefined> {
    return (await this.get(name))?.value;
  }

  async set(name: string, value: string, options: { to?: BackendId } = {}): Promise<BackendId> {
    assertValidSecretName(name);
    if (value === '') throw new SecretsError('invalid-name', 'refusing to store an empty value');
    const target = options.to ? await this.backend(options.to) : await this.primary();
    if (!target) {
      throw new SecretsError(
        'unavailable',
        `no writable secrets backend is available: ${await this.whyNone()}`,
      );
    }
    this.register(value, name);
    await target.set(name, value);
    return target.id;
  }

  /** Deletes the name from every writable backend that has it; returns where it was. */
  async delete(name: string): Promise<BackendId[]> {
    const removed: BackendId[] = [];
    for (const backend of await this.available()) {
      if (backend.writable && (await backend.delete(name))) removed.push(backend.id);
    }
    return removed;
  }

  async list(): Promise<SecretEntry[]> {
    const seen = new Set<string>();
    const entries: SecretEntry[] = [];
    for (const backend of await this.available()) {
      for (const name of await backend.list()) {
        entries.push({ name, backend: backend.id, shadowed: seen.has(name) });
        seen.add(name);
      }
    }
    return entries;
  }

  /**
   * Moves every secret from the other writable backends into `to`: copy, read back and compare,
   * and only then delete from the source. A name the target already holds with a different
   * value is skipped (both copies kept) rather than overwritten.
   */
  async migrate(to: BackendId): Promise<MigrationReport> {
    const target = await this.backend(to);
    if (!target.writable)
      throw new SecretsError('read-only', `${target.label} cannot be written to`);
    const report: MigrationReport = { to, moved: [], skipped: [] };
    for (const source of await this.available()) {
      if (source === target || !source.writable) continue;
      for (const name of await source.list()) {
        const value = await source.get(name);
        if (value === undefined) continue;
        this.register(value, name);
        const existing = await target.get(name);
        if (existing !== undefined && existing !== value) {
          report.skipped.push({
            name,
            from: source.id,
            reason: `${to} already holds a different value`,
          });
          continue;
        }
        if (existing === undefined) {
          await target.set(name, value);
          if ((await target.get(name)) !== value) {
            throw new SecretsError(
              'migration-failed',
              `${name} did not read back from ${to}; it was left in ${source.id}`,
            );
          }
        }
        await source.delete(name);
        report.moved.push({ name, from: source.id });
      }
    }
    return report;
  }

  /** Zeroes cached keys; call when done with the store. */
  close(): void {
    for (const backend of this.backends) backend.close?.();
  }

  private async backend(id: BackendId): Promise<SecretBackend> {
    const backend = this.backends.find((b) => b.id === id);
    if (!backend) throw new SecretsError('unavailable', `the ${id} backend is not configured here`);
    const state = await backend.availability();
    if (!state.available)
      throw new SecretsError('unavailable', `${backend.label} is unavailable: ${state.reason}`);
    return backend;
  }

  private async available(): Promise<SecretBackend[]> {
    const states = await Promise.all(this.backends.map((b) => b.availability()));
    return this.backends.filter((_, i) => states[i]?.available);
  }

  private async whyNone(): Promise<string> {
    const reasons = (await this.status())
      .filter((s) => s.writable && !s.availability.available)
      .map((s) => `${s.label}: ${s.availability.available ? '' : s.availability.reason}`);
    return reasons.join('; ') || 'none configured';
  }
}
