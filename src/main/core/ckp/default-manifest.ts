/**
 * Which manifest is in force: an explicit file (`--manifest`), else the user's `claw.yaml` in
 * the data directory, else the default agent shipped in `resources/`.
 */

import { constants, existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PincerError } from '../errors.js';
import { cachePath, HashCache } from './cache-file.js';
import { type LoadOptions, loadClaw } from './loader.js';
import type { ResolvedClaw } from './resolved.js';
import { isParsedDocuments } from './yaml-source.js';

export const MANIFEST_FILE = 'claw.yaml';
/** The load caches' files under `<data dir>/cache/`. */
export const SCHEMA_VERDICTS = 'schema-verdicts.json';
export const MANIFEST_SOURCES = 'manifest-sources.json';
export const SPEC_PARSES = 'manifest-specs.json';
/** Templates seeded next to the user's manifest: the identity's context files. */
export const CONTEXT_TEMPLATES = ['SOUL.md', 'USER.md'] as const;

export interface ManifestPlaces {
  dataDir: string;
  /** The shipped resources directory (`<appDir>/resources`, or Electron's resourcesPath). */
  resourcesDir: string;
}

export type ManifestOrigin = 'explicit' | 'user' | 'default';

export interface ActiveManifest {
  file: string;
  origin: ManifestOrigin;
  /** Where the manifest's relative path values (SOUL.md, memory, workspace) resolve. */
  contextDir: string;
}

export const resourcesDirOf = (appDir: string) => path.join(appDir, 'resources');
export const defaultManifestPath = (resourcesDir: string) => path.join(resourcesDir, MANIFEST_FILE);
export const userManifestPath = (dataDir: string) => path.join(dataDir, MANIFEST_FILE);

export function resolveActiveManifest(places: ManifestPlaces, explicit?: string): ActiveManifest {
  if (explicit) {
    const file = path.resolve(explicit);
    return { file, origin: 'explicit', contextDir: path.dirname(file) };
  }
  const user = userManifestPath(places.dataDir);
  if (existsSync(user)) return { file: user, origin: 'user', contextDir: places.dataDir };
  // The shipped default is read-only; what it names (SOUL.md, memory) lives in the data dir.
  return {
    file: defaultManifestPath(places.resourcesDir),
    origin: 'default',
    contextDir: places.dataDir,
  };
}

/** Load options for a manifest in force: its context dir and the local primitive library. */
export function loadOptionsFor(active: ActiveManifest, places: ManifestPlaces): LoadOptions {
  return {
    contextDir: active.contextDir,
    libraryDirs: [path.join(places.dataDir, 'primitives')],
  };
}

export async function loadActiveClaw(
  places: ManifestPlaces,
  explicit?: string,
): Promise<{ active: ActiveManifest; claw: ResolvedClaw }> {
  const active = resolveActiveManifest(places, explicit);
  const [verdicts, sources, specs] = await Promise.all([
    // Tool schemas found valid (only valid verdicts are kept), enough for a few manifests.
    HashCache.open(cachePath(places.dataDir, SCHEMA_VERDICTS), {
      max: 512,
      valid: (value): value is true => value === true,
    }),
    // Parsed manifest files, with every node's position.
    HashCache.open(cachePath(places.dataDir, MANIFEST_SOURCES), {
      max: 64,
      valid: isParsedDocuments,
    }),
    // Specs zod found valid, as it typed them.
    HashCache.open(cachePath(places.dataDir, SPEC_PARSES), {
      max: 512,
      valid: (value): value is unknown => typeof value === 'object' && value !== null,
    }),
  ]);
  const claw = await loadClaw(active.file, {
    ...loadOptionsFor(active, places),
    schemaVerdicts: { has: (key) => verdicts.has(key), add: (key) => verdicts.set(key, true) },
    sourceCache: sources,
    specParses: specs,
  });
  // A cache that cannot be written (a read-only data dir) costs only the next start's work.
  await Promise.all(
    [verdicts.save(), sources.save(), specs.save()].map((saved) => saved.catch(() => undefined)),
  );
  return { active, claw };
}

export class ManifestExistsError extends PincerError {
  readonly code = 'manifest_exists';
  constructor(readonly file: string) {
    super('conflict', `${file} already exists; pass --force to overwrite it`);
    this.name = 'ManifestExistsError';
  }
}

export interface InitResult {
  manifest: string;
  /** Context templates copied (never overwritten: they hold the user's own words). */
  seeded: string[];
}

/**
 * Writes the commented starter manifest (a copy of the shipped default) to `target` (default:
 * the data dir's claw.yaml) and seeds SOUL.md/USER.md next to it when absent. Never overwrites
 * an existing manifest unless `force`.
 */
export async function initUserManifest(
  places: ManifestPlaces,
  options: { target?: string; force?: boolean } = {},
): Promise<InitResult> {
  const target = path.resolve(options.target ?? userManifestPath(places.dataDir));
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await copyFile(
      defaultManifestPath(places.resourcesDir),
      target,
      options.force ? 0 : constants.COPYFILE_EXCL,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ManifestExistsError(target);
    throw error;
  }
  const seeded: string[] = [];
  for (const name of CONTEXT_TEMPLATES) {
    const dest = path.join(path.dirname(target), name);
    try {
      await copyFile(path.join(places.resourcesDir, name), dest, constants.COPYFILE_EXCL);
      seeded.push(dest);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { manifest: target, seeded };
}
