import type { Availability, SecretBackend } from './types.js';
import { SecretsError } from './types.js';

/**
 * Environment variables, read-only: the way in for CI and containers. `list` shows only the
 * names it was told about (listing the whole environment would expose unrelated variables).
 */
export class EnvBackend implements SecretBackend {
  readonly id = 'env' as const;
  readonly label = 'environment variables (read-only)';
  readonly writable = false;

  constructor(
    private readonly env: Record<string, string | undefined> = process.env,
    private readonly listable: readonly string[] = [],
  ) {}

  async availability(): Promise<Availability> {
    return { available: true };
  }

  async get(name: string): Promise<string | undefined> {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  async set(): Promise<void> {
    throw new SecretsError('read-only', 'environment variables are read-only to Pincer');
  }

  async delete(): Promise<boolean> {
    throw new SecretsError('read-only', 'environment variables are read-only to Pincer');
  }

  async list(): Promise<string[]> {
    return this.listable.filter((name) => this.env[name]).sort();
  }
}
