import fs from 'node:fs/promises';
import { createSecretStore, vaultPath } from '../secrets/index.js';
import type { DoctorCheck } from './checks.js';

/** Which secrets backend `pincer secrets set` would write to here, and why the others are out. */
export async function checkSecrets(
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<DoctorCheck> {
  const base = { id: 'secrets', label: 'Secrets backend' };
  const store = createSecretStore({ dataDir, env });
  try {
    const status = await store.status();
    const active = await store.primary();
    const backends = status.map((s) => ({
      id: s.id,
      available: s.availability.available,
      why: s.availability.available ? (s.availability.detail ?? '') : s.availability.reason,
    }));
    const vaultExists = await fs.access(vaultPath(dataDir)).then(
      () => true,
      () => false,
    );
    const details = {
      active: active?.id ?? null,
      backends,
      vaultFile: vaultExists ? vaultPath(dataDir) : null,
    };
    if (!active) {
      const why = backends
        .filter((b) => !b.available)
        .map((b) => `${b.id}: ${b.why}`)
        .join('; ');
      return {
        ...base,
        status: 'warn',
        summary: `no writable backend, environment variables only (${why})`,
        details,
      };
    }
    const hint =
      active.id === 'keychain' && vaultExists
        ? '; a vault file exists: `pincer secrets migrate --to keychain`'
        : '';
    return { ...base, status: 'ok', summary: `${active.label}${hint}`, details };
  } catch (error) {
    return {
      ...base,
      status: 'warn',
      summary: `could not query the secrets backends: ${String(error)}`,
    };
  } finally {
    store.close();
  }
}
