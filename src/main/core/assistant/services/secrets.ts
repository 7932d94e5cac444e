/**
 * `secrets.*`: the names and backends of the secret store, never a value. Owns the names a
 * typed tool call may refer to (`$env` never resolves to a secret there): read at the start and
 * again whenever the list is read or changed here.
 */

import type { SecretsView } from '../../../../shared/ipc-schemas.js';
import type { SecretStore } from '../../secrets/index.js';
import type { SecretsService } from '../types.js';

export class SecretNames {
  private constructor(private names: readonly string[]) {}

  static async read(secrets: Pick<SecretStore, 'list'>): Promise<SecretNames> {
    const names = await secrets
      .list()
      .then((entries) => entries.map((entry) => entry.name))
      .catch(() => []);
    return new SecretNames(names);
  }

  current(): readonly string[] {
    return this.names;
  }

  set(names: readonly string[]): void {
    this.names = names;
  }
}

export function secretsService(secrets: SecretStore, names: SecretNames): SecretsService {
  const view = async (): Promise<SecretsView> => {
    const [listed, backends] = await Promise.all([secrets.list(), secrets.status()]);
    names.set(listed.map((n) => n.name));
    return {
      names: listed.map((n) => ({ name: n.name, backend: n.backend, shadowed: n.shadowed })),
      backends: backends.map((b) => ({
        id: b.id,
        label: b.label,
        writable: b.writable,
        available: b.availability.available,
      })),
    };
  };
  return {
    secrets: view,
    async setSecret(name, value) {
      await secrets.set(name, value);
      return view();
    },
    async deleteSecret(name) {
      await secrets.delete(name);
      return view();
    },
  };
}
