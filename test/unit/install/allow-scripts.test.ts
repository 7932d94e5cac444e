/**
 * A newcomer's `npm install` builds Pincer's native parts as npm tightens install scripts: npm 11
 * runs a dependency's install script only when package.json's `allowScripts` covers it (an entry
 * `name` or `name@exact-version`, true to run, false to skip on purpose). Every package of the
 * lockfile with an install script has its entry, so a new one cannot slip in unreviewed.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, unknown>;
};
const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
};

/** The package a lockfile key names: node_modules/a/node_modules/@s/b -> @s/b. */
const packageOf = (key: string) =>
  key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** An allowScripts key as npm reads it: a name, or a name with exact versions joined by ||. */
function parseKey(key: string): { name: string; versions: string[] | null } | null {
  const at = key.indexOf('@', 1);
  if (at < 0) return { name: key, versions: null };
  const versions = key
    .slice(at + 1)
    .split('||')
    .map((v) => v.trim());
  if (!versions.every((v) => /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(v))) return null;
  return { name: key.slice(0, at), versions };
}

const withScripts = Object.entries(lock.packages)
  .filter(([key, info]) => key.includes('node_modules/') && info.hasInstallScript)
  .map(([key, info]) => ({ name: packageOf(key), version: info.version ?? '' }));

it('declares every lockfile package with an install script in allowScripts, in the form npm reads', () => {
  const entries = Object.entries(pkg.allowScripts ?? {});
  const parsed = entries.map(([key, value]) => ({ key, value, parsed: parseKey(key) }));
  expect(
    parsed.filter((e) => !e.parsed).map((e) => e.key),
    'keys npm would ignore',
  ).toEqual([]);
  expect(parsed.filter((e) => typeof e.value !== 'boolean').map((e) => e.key)).toEqual([]);
  const uncovered = withScripts.filter(
    ({ name, version }) =>
      !parsed.some(
        (e) =>
          e.parsed?.name === name && (!e.parsed.versions || e.parsed.versions.includes(version)),
      ),
  );
  expect(
    uncovered.map((p) => `${p.name}@${p.version}`),
    'add them to allowScripts',
  ).toEqual([]);
  // No stale entry: each names a package that still has an install script.
  const stale = parsed.filter((e) => !withScripts.some((p) => p.name === e.parsed?.name));
  expect(
    stale.map((e) => e.key),
    'remove them from allowScripts',
  ).toEqual([]);
  // The native modules the app needs are built on install.
  for (const name of ['better-sqlite3', 'keytar', 'esbuild'])
    expect(pkg.allowScripts?.[name]).toBe(true);
});

it("npm's own reading of allowScripts leaves no installed package pending", async () => {
  const version = (await run('npm', ['--version'], { cwd: repoRoot })).stdout.trim();
  const help = await run('npm', ['install-scripts', '--help'], { cwd: repoRoot }).catch(() => null);
  if (!help) {
    console.log(
      `npm ${version} has no install-scripts command (npm 11.x added it): lockfile check only`,
    );
    return;
  }
  const { stdout } = await run('npm', ['install-scripts', 'ls', '--json'], { cwd: repoRoot });
  expect((JSON.parse(stdout) as { allowScripts: unknown[] }).allowScripts).toEqual([]);
});
