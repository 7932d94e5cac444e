/**
 * The manifest's Sandbox primitive (003 §5.7) as SandboxSettings. Without one, the defaults
 * apply: level process, no network for code, the workspace read-write, keys and Pincer's data
 * dir denied. `cpu_shares` has no per-process equivalent here and is not enforced.
 */
import type { Primitive, ResolvedClaw } from '../ckp/index.js';
import type { SandboxSettings, SettingsInput } from './settings.js';
import { sandboxSettings } from './settings.js';

export interface ManifestPlaces {
  workspace: string;
  dataDir: string;
  home?: string;
}

export function settingsFromSandbox(
  primitive: Primitive<'Sandbox'> | undefined,
  places: ManifestPlaces,
): SandboxSettings {
  const spec = primitive?.spec;
  const caps = spec?.capabilities;
  const limits = spec?.resource_limits;
  const input: SettingsInput = {
    workspace: places.workspace,
    dataDir: places.dataDir,
    home: places.home,
    level: spec?.level,
    network: {
      mode: caps?.network?.mode,
      allowedHosts: caps?.network?.allowed_hosts,
      blockPrivate:
        caps?.network?.ssrf_protection?.enabled === false ||
        caps?.network?.ssrf_protection?.block_private_ips === false
          ? false
          : undefined,
    },
    filesystem: {
      mode: caps?.filesystem?.mode,
      mounts: caps?.filesystem?.mount_paths?.map((m) => ({ path: m.path, mode: m.permissions })),
      denied: caps?.filesystem?.denied_paths,
    },
    shell: {
      mode: caps?.shell?.mode,
      blockedCommands: caps?.shell?.blocked_commands,
      blockedPatterns: caps?.shell?.blocked_patterns,
    },
    limits: {
      memoryMb: limits?.memory_mb || undefined,
      maxProcesses: limits?.max_processes || undefined,
      maxOpenFiles: limits?.max_open_files || undefined,
      timeoutMs: limits?.timeout_ms || undefined,
      maxOutputBytes: limits?.max_output_bytes || undefined,
    },
  };
  return sandboxSettings(stripUndefined(input));
}

export function settingsFromManifest(claw: ResolvedClaw, places: ManifestPlaces): SandboxSettings {
  return settingsFromSandbox(claw.sandbox, places);
}

/** Drops undefined leaves so the defaults of sandboxSettings fill them. */
function stripUndefined<T>(value: T): T {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, stripUndefined(v)]);
  return Object.fromEntries(entries) as T;
}
