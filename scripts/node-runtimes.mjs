#!/usr/bin/env node
/**
 * Prepares the Node.js releases the CLI is tested on, beside the one running this script:
 * `node scripts/node-runtimes.mjs [MAJOR...]` (default: the lines the doctor calls tested).
 *
 * Each major gets the newest release of that line, from the registry's `node-<platform>-<arch>`
 * package (the binary the `node` package installs), and better-sqlite3 rebuilt against that
 * release's headers (the one native module bound to Node's ABI; the others use N-API), both kept
 * in the user's cache. `.cache/node-runtimes/vMAJOR/app/` in the clone links that build as its
 * node_modules/better-sqlite3: a CLI copied to `app/dist/` resolves it there and every other
 * package from the clone's node_modules further up, so the bundle runs as users run it on that
 * Node. The product suite runs `dist/cli.js` on each (`runtime.json` says where they are).
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/**
 * The LTS lines CI tests besides its own Node, as the doctor names them (its one owner):
 * `TESTED_NODE_MAJORS` in src/main/core/doctor/node-check.ts.
 */
export function testedMajors() {
  const source = readFileSync(path.join(root, 'src/main/core/doctor/node-check.ts'), 'utf8');
  const list = /TESTED_NODE_MAJORS[^=]*=\s*\[([^\]]*)\]/.exec(source)?.[1];
  if (!list) throw new Error('TESTED_NODE_MAJORS not found in src/main/core/doctor/node-check.ts');
  return list.split(',').map((major) => Number(major.trim()));
}
export const runtimesDir = path.join(root, '.cache', 'node-runtimes');

function platformPackage() {
  const platform = { linux: 'linux', darwin: 'darwin' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!platform || !arch) {
    throw new Error(`no Node.js release package for ${process.platform}-${process.arch}`);
  }
  return `node-${platform}-${arch}`;
}

function npm(args, options = {}) {
  return execFileSync('npm', args, { encoding: 'utf8', ...options }).trim();
}

/** The newest published release of a major, e.g. 24 -> "24.9.0". */
function newestRelease(pkg, major) {
  const listed = JSON.parse(npm(['view', `${pkg}@^${major}`, 'version', '--json']));
  const versions = (Array.isArray(listed) ? listed : [listed]).filter((v) =>
    v.startsWith(`${major}.`),
  );
  const newest = versions.sort((a, b) => compareVersions(a, b)).at(-1);
  if (!newest) throw new Error(`${pkg} has no release of Node ${major}`);
  return newest;
}

function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

async function fetchNode(pkg, version, into) {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-node-'));
  try {
    const tarball = npm(['pack', `${pkg}@${version}`, '--pack-destination', scratch, '--silent']);
    rmSync(into, { recursive: true, force: true });
    mkdirSync(into, { recursive: true });
    execFileSync('tar', ['xzf', path.join(scratch, tarball), '-C', into, '--strip-components=1']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Built runtimes are kept per user, outside any clone (a release and its better-sqlite3 build
 * never change), so a fresh clone or CI run on the same machine reuses them.
 */
function userCache() {
  if (process.env.PINCER_NODE_RUNTIMES_CACHE) return process.env.PINCER_NODE_RUNTIMES_CACHE;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'pincer', 'node-runtimes');
}

/** better-sqlite3 and what it requires at run time, copied so they resolve from the cache. */
const SQLITE_PACKAGES = ['better-sqlite3', 'bindings', 'file-uri-to-path'];

function buildSqlite(nodeDir, version, modules) {
  rmSync(modules, { recursive: true, force: true });
  for (const name of SQLITE_PACKAGES) {
    const source = path.join(root, 'node_modules', name);
    cpSync(source, path.join(modules, name), {
      recursive: true,
      filter: (file) => path.relative(source, file).split(path.sep)[0] !== 'build',
    });
  }
  const gyp = path.join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const node = path.join(nodeDir, 'bin', 'node');
  execFileSync(
    node,
    [
      gyp,
      'rebuild',
      '--release',
      `--target=${version}`,
      `--nodedir=${nodeDir}`,
      `--jobs=${os.availableParallelism()}`,
      '--loglevel=warn',
    ],
    {
      cwd: path.join(modules, 'better-sqlite3'),
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` },
    },
  );
}

export async function prepare(major) {
  const pkg = platformPackage();
  const dir = path.join(runtimesDir, `v${major}`);
  const stampFile = path.join(dir, 'runtime.json');
  const stamp = readJson(stampFile);
  let version;
  try {
    version = newestRelease(pkg, major);
  } catch (error) {
    // Offline: what was prepared before still runs.
    if (stamp && existsSync(stamp.node)) {
      console.log(`node ${stamp.version}: ready (registry unreachable, kept)`);
      return stamp;
    }
    throw error;
  }
  const sqliteVersion = readJson(
    path.join(root, 'node_modules/better-sqlite3/package.json'),
  )?.version;
  const built = path.join(userCache(), `${version}-${pkg}-better-sqlite3-${sqliteVersion}`);
  const nodeDir = path.join(built, 'node');
  const modules = path.join(built, 'node_modules');
  const binding = path.join(modules, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(path.join(nodeDir, 'bin', 'node'))) {
    console.log(`node ${version}: fetching ${pkg}@${version}`);
    await fetchNode(pkg, version, nodeDir);
  }
  if (!existsSync(binding)) {
    console.log(`node ${version}: building better-sqlite3 ${sqliteVersion} for it`);
    buildSqlite(nodeDir, version, modules);
  }
  // The app folder sits inside the clone, so everything but better-sqlite3 resolves from the
  // clone's node_modules further up.
  const app = path.join(dir, 'app');
  const link = path.join(app, 'node_modules', 'better-sqlite3');
  mkdirSync(path.dirname(link), { recursive: true });
  rmSync(link, { recursive: true, force: true });
  symlinkSync(path.join(modules, 'better-sqlite3'), link, 'dir');
  const ready = {
    major,
    version,
    betterSqlite3: sqliteVersion,
    node: path.join(nodeDir, 'bin', 'node'),
    app,
  };
  writeFileSync(stampFile, `${JSON.stringify(ready, null, 2)}\n`);
  console.log(`node ${version}: ready (${built})`);
  return ready;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const majors = process.argv.slice(2).map(Number);
  for (const major of majors.length > 0 ? majors : testedMajors()) {
    if (!Number.isInteger(major) || major < 20) throw new Error(`not a Node major: ${major}`);
    await prepare(major);
  }
}
