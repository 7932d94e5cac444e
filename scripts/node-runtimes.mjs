#!/usr/bin/env node
/**
 * Prepares the Node.js releases the CLI is tested on, beside the one running this script:
 * `node scripts/node-runtimes.mjs [MAJOR...]` (default: the lines the doctor calls tested).
 *
 * Each major gets `.cache/node-runtimes/vMAJOR/`: `node/` (the newest release of that major,
 * from the registry's `node-<platform>-<arch>` package, the same binary the `node` package
 * installs) and `app/node_modules/better-sqlite3` rebuilt against that release's headers (it is
 * the one native module bound to Node's ABI; the others use N-API). A CLI copied to
 * `vMAJOR/app/dist/` resolves better-sqlite3 there and every other package from the
 * repository's node_modules further up, so the bundle runs as users run it on that Node.
 * Prepared runtimes are kept and reused; the product suite runs `dist/cli.js` on each.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function buildSqlite(nodeDir, version, into) {
  const source = path.join(root, 'node_modules', 'better-sqlite3');
  rmSync(into, { recursive: true, force: true });
  cpSync(source, into, {
    recursive: true,
    filter: (file) => path.relative(source, file).split(path.sep)[0] !== 'build',
  });
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
      cwd: into,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` },
    },
  );
}

export async function prepare(major) {
  const pkg = platformPackage();
  const version = newestRelease(pkg, major);
  const dir = path.join(runtimesDir, `v${major}`);
  const stampFile = path.join(dir, 'runtime.json');
  const sqliteVersion = readJson(
    path.join(root, 'node_modules/better-sqlite3/package.json'),
  )?.version;
  const stamp = readJson(stampFile);
  if (stamp?.version === version && stamp?.betterSqlite3 === sqliteVersion) {
    console.log(`node ${version}: ready (${dir})`);
    return stamp;
  }
  const nodeDir = path.join(dir, 'node');
  if (!existsSync(path.join(nodeDir, 'bin', 'node')) || stamp?.version !== version) {
    console.log(`node ${version}: fetching ${pkg}@${version}`);
    await fetchNode(pkg, version, nodeDir);
  }
  console.log(`node ${version}: building better-sqlite3 ${sqliteVersion} for it`);
  buildSqlite(nodeDir, version, path.join(dir, 'app', 'node_modules', 'better-sqlite3'));
  const ready = {
    major,
    version,
    betterSqlite3: sqliteVersion,
    node: path.join(nodeDir, 'bin', 'node'),
    app: path.join(dir, 'app'),
  };
  writeFileSync(stampFile, `${JSON.stringify(ready, null, 2)}\n`);
  console.log(`node ${version}: ready (${dir})`);
  return ready;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const majors = process.argv.slice(2).map(Number);
  for (const major of majors.length > 0 ? majors : testedMajors()) {
    if (!Number.isInteger(major) || major < 20) throw new Error(`not a Node major: ${major}`);
    await prepare(major);
  }
}
