/**
 * What ships is what is tested: every lazy `import()` of a package in src/main reaches, in the
 * built bundles, the names the code reads from it, as under plain Node (npm run build first).
 * A bundler may turn a CommonJS package into a chunk whose only export is `default`; the source
 * run by vitest would not notice (the Telegram channel once failed that way from dist/cli.js).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { init, parse } from 'es-module-lexer';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtCli, repoRoot } from '../support/cli-run.js';
import {
  findLazyPackageImports,
  isPackageSpecifier,
  type LazyImport,
} from '../support/lazy-imports.js';

const run = promisify(execFile);

interface Namespace {
  /** typeof of each export name, or the error that loading it threw. */
  types?: Record<string, string>;
  error?: string;
}

/**
 * Loads each target (a package specifier, or a file URL of a chunk) with plain Node's import()
 * in a fresh process started in `cwd`, and returns what each namespace holds.
 */
async function loadWithNode(targets: string[], cwd: string): Promise<Record<string, Namespace>> {
  const script = `
    const out = {};
    for (const target of JSON.parse(process.argv[1])) {
      try {
        const ns = await import(target);
        out[target] = { types: Object.fromEntries(Object.keys(ns).map((k) => [k, typeof ns[k]])) };
      } catch (error) {
        out[target] = { error: String(error && error.message || error).split('\\n')[0] };
      }
    }
    process.stdout.write(JSON.stringify(out));
    process.exit(0);`;
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(targets)],
    { cwd, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as Record<string, Namespace>;
}

interface Metafile {
  inputs: Record<
    string,
    { imports: Array<{ path: string; kind: string; external?: boolean; original?: string }> }
  >;
  outputs: Record<
    string,
    {
      entryPoint?: string;
      inputs: Record<string, unknown>;
      imports: Array<{ path: string; kind: string; external?: boolean }>;
    }
  >;
}

/** How the CLI bundle loads one lazy import: kept as a package import, or the chunk it loads. */
function cliBundleTarget(
  meta: Metafile,
  site: LazyImport,
): { external: true } | { chunk: string } | { absent: string } {
  const input = meta.inputs[site.file];
  if (!input) return { absent: `${site.file} is not in the CLI bundle` };
  const edge = input.imports.find(
    (use) => use.kind === 'dynamic-import' && (use.original ?? use.path) === site.specifier,
  );
  if (!edge)
    return { absent: `the bundle records no import('${site.specifier}') from ${site.file}` };
  if (edge.external) return { external: true };
  const outputs = Object.entries(meta.outputs);
  const loadedLazily = new Set(
    outputs.flatMap(([, out]) =>
      out.imports.filter((use) => use.kind === 'dynamic-import').map((use) => use.path),
    ),
  );
  const chunk =
    outputs.find(([, out]) => out.entryPoint === edge.path)?.[0] ??
    outputs.find(([file, out]) => loadedLazily.has(file) && edge.path in out.inputs)?.[0];
  if (!chunk) return { absent: `no chunk of the CLI bundle holds ${edge.path}` };
  return { chunk };
}

function missing(
  site: LazyImport,
  ns: Namespace | undefined,
  node: Namespace | undefined,
): string[] {
  if (!ns || ns.error) return [`cannot be loaded: ${ns?.error ?? 'no result'}`];
  return (site.names ?? []).flatMap((name) => {
    const got = ns.types?.[name];
    const want = node?.types?.[name];
    if (got === undefined) return [`has no export "${name}" (plain Node: ${want ?? 'none'})`];
    if (want !== undefined && got !== want) return [`"${name}" is a ${got}, under Node a ${want}`];
    return [];
  });
}

const where = (site: LazyImport) => `${site.file}:${site.line} import('${site.specifier}')`;

let sites: LazyImport[] = [];
let node: Record<string, Namespace> = {};

beforeAll(async () => {
  for (const built of [
    builtCli,
    path.join(repoRoot, 'dist/meta.json'),
    path.join(repoRoot, 'out/main/index.js'),
  ])
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
  const all = await findLazyPackageImports(repoRoot, ['src']);
  for (const site of all.filter((s) => !s.file.startsWith('src/main/')))
    console.log(
      `not checked in Node: ${where(site)} (the renderer's browser bundle; the UI tests load it)`,
    );
  sites = all.filter((site) => site.file.startsWith('src/main/'));
  node = await loadWithNode([...new Set(sites.map((site) => site.specifier))], repoRoot);
});

describe('lazy imports of packages', () => {
  it('are found by parsing, with the names the code reads from each', () => {
    // The parser sees the known sites (a lost parse would make the checks below vacuous).
    const grammy = sites.find((site) => site.specifier === 'grammy');
    expect(grammy?.names).toEqual(['Bot', 'GrammyError', 'InlineKeyboard', 'InputFile']);
    const unknown = sites.filter((site) => site.names === null);
    expect(
      unknown.map((site) => `${where(site)}: ${site.unknown}`),
      'read the names from a lazy import in a way the analysis follows (destructure, ns.name, this.field = ns)',
    ).toEqual([]);
  });

  it('reach under plain Node the names the code reads', () => {
    const problems = sites.flatMap((site) =>
      missing(site, node[site.specifier], undefined).map((problem) => `${where(site)} ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('reach the same names from the chunks of dist/ as under Node', async () => {
    const meta = JSON.parse(
      readFileSync(path.join(repoRoot, 'dist/meta.json'), 'utf8'),
    ) as Metafile;
    const targets = new Map<LazyImport, string>();
    const problems: string[] = [];
    for (const site of sites) {
      const target = cliBundleTarget(meta, site);
      if ('chunk' in target) targets.set(site, target.chunk);
      else if ('absent' in target && !target.absent.endsWith('is not in the CLI bundle'))
        problems.push(`${where(site)}: ${target.absent}`);
    }
    // A chunk is loaded as the bundle loads it: by URL, from dist/, in plain Node.
    const loaded = await loadWithNode(
      [...new Set(targets.values())].map((chunk) => pathToFileURL(path.join(repoRoot, chunk)).href),
      repoRoot,
    );
    for (const [site, chunk] of targets) {
      const ns = loaded[pathToFileURL(path.join(repoRoot, chunk)).href];
      for (const problem of missing(site, ns, node[site.specifier]))
        problems.push(`${where(site)} loads ${chunk}, which ${problem}`);
    }
    expect(problems).toEqual([]);
    // grammy, a CommonJS package, is bundled: the check loaded its chunk rather than trusting it.
    expect([...targets.keys()].some((site) => site.specifier === 'grammy')).toBe(true);
  });

  it('stay package imports in out/main, resolved by Node as in the checks above', async () => {
    await init;
    const files = readdirSync(path.join(repoRoot, 'out/main'), {
      recursive: true,
      encoding: 'utf8',
    })
      .filter((file) => file.endsWith('.js'))
      .map((file) => path.join(repoRoot, 'out/main', file));
    const kept = new Set<string>();
    const bundled = new Set<string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const [imports] = parse(text);
      for (const use of imports)
        if (use.d > -1 && use.n && isPackageSpecifier(use.n)) kept.add(use.n);
      // The bundler marks where each bundled module starts with a `// node_modules/...` line.
      for (const site of sites)
        if (text.includes(`// node_modules/${site.specifier}/`)) bundled.add(site.specifier);
    }
    // The Electron main bundle has no metafile to find a bundled package's chunk by; what it
    // loads lazily stays external, where Node (Electron's) resolves it exactly as checked above.
    expect(
      [...bundled].sort(),
      'packages the main process imports lazily, bundled into out/main',
    ).toEqual([]);
    const reached = sites.filter((site) => kept.has(site.specifier)).map((site) => site.specifier);
    expect(reached).toContain('grammy');
    // A native addon copied into out/main would be the build for this Node, not for Electron.
    const addons = readdirSync(path.join(repoRoot, 'out/main'), {
      recursive: true,
      encoding: 'utf8',
    }).filter((file) => file.endsWith('.node'));
    expect(addons).toEqual([]);
  });
});
