/**
 * The Node.js releases `node scripts/node-runtimes.mjs` prepared under .cache/node-runtimes/:
 * each a `node` binary and an app folder whose node_modules holds better-sqlite3 built for it.
 * `installCli` copies the built CLI there, so it runs under that Node as a user's copy would.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import path from 'node:path';

export interface NodeRuntime {
  major: number;
  version: string;
  /** The `node` binary. */
  node: string;
  /** Where a copy of the CLI runs from. */
  app: string;
}

const repoRoot = path.resolve(import.meta.dirname, '../..');

export function preparedRuntime(major: number): NodeRuntime | undefined {
  const stamp = path.join(repoRoot, '.cache', 'node-runtimes', `v${major}`, 'runtime.json');
  if (!existsSync(stamp)) return undefined;
  const runtime = JSON.parse(readFileSync(stamp, 'utf8')) as NodeRuntime;
  return existsSync(runtime.node) ? runtime : undefined;
}

/** What the CLI reads beside itself: the bundle, the default manifest, the model catalog. */
const SHIPPED = ['dist', 'resources', 'models/catalog.json'];

/** Copies the CLI's files into the runtime's app folder; returns the CLI's path there. */
export async function installCli(runtime: NodeRuntime): Promise<string> {
  for (const part of SHIPPED) {
    await rm(path.join(runtime.app, part), { recursive: true, force: true });
    await cp(path.join(repoRoot, part), path.join(runtime.app, part), { recursive: true });
  }
  await cp(path.join(repoRoot, 'package.json'), path.join(runtime.app, 'package.json'));
  return path.join(runtime.app, 'dist', 'cli.js');
}
