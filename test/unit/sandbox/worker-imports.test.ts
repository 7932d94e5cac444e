/**
 * Every tool worker is a Node process that loads its code at start; the app keeps three and each
 * `pincer run` with a tool starts one. What it loads before its first call is only the builtin
 * tools and the channel: the validation, manifest and storage libraries stay with the host (a
 * barrel import once pulled in 1.8 MB of them; starting a worker took twice as long).
 */
import path from 'node:path';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

it('the worker loads no validation, manifest or storage library before its first call', async () => {
  const result = await build({
    entryPoints: [path.join(repoRoot, 'src/main/core/sandbox/worker.ts')],
    bundle: true,
    write: false,
    splitting: true,
    format: 'esm',
    platform: 'node',
    outdir: path.join(repoRoot, 'dist-worker-imports-test'),
    metafile: true,
    external: ['better-sqlite3', 'sqlite-vec', 'keytar', 'node-llama-cpp', 'electron'],
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const entry = Object.keys(outputs).find((file) => outputs[file]?.entryPoint);
  if (!entry) throw new Error('esbuild reported no entry output');
  // What loads at start: the entry, what it imports (its start-up imports the tools), and what
  // those import statically; a tool's own lazy imports load with its first call.
  const loaded = new Set<string>();
  const visit = (file: string, lazyToo: boolean) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const use of outputs[file]?.imports ?? [])
      if (!use.external && (use.kind === 'import-statement' || lazyToo)) visit(use.path, false);
  };
  visit(entry, true);
  const inputs = [...loaded].flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
  const packages = new Set(
    inputs.flatMap((input) => {
      const after = input.split('node_modules/').at(-1) ?? '';
      if (!input.includes('node_modules/')) return [];
      const parts = after.split('/');
      return [after.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? '')];
    }),
  );
  for (const heavy of ['zod', 'ajv', 'yaml', 'tinyglobby', 'picomatch'])
    expect(packages.has(heavy), `${heavy} loads with the worker`).toBe(false);
  const externals = [...loaded].flatMap((file) =>
    (outputs[file]?.imports ?? []).filter((use) => use.external).map((use) => use.path),
  );
  expect(externals.filter((name) => !name.startsWith('node:'))).toEqual([]);
  // The builtin tools themselves are there.
  expect(inputs.some((input) => input.endsWith('tools/builtins/fs.ts'))).toBe(true);
});
