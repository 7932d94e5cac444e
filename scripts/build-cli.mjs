#!/usr/bin/env node
/**
 * `npm run build:cli`: the headless CLI (dist/cli.js) and the sandbox's tool worker
 * (dist/sandbox-worker.js) for plain Node. Pure-JS dependencies are bundled so start-up reads a
 * few files instead of walking hundreds; packages with native code or their own binaries stay
 * external. Code split: a command's modules (and node-llama-cpp behind the local engine) load
 * only when that command runs. Chunks sit next to the entries, because the worker is found next
 * to the code that starts it. `--metafile` writes dist/meta.json (what went where).
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const NATIVE = ['better-sqlite3', 'sqlite-vec', 'keytar', 'node-llama-cpp', 'electron'];
// Optional packages loaded only when installed: ws's native speed-ups (plain JS without them)
// and the React DevTools bridge Ink imports only when DEV=true.
const OPTIONAL = ['bufferutil', 'utf-8-validate', 'react-devtools-core'];

/**
 * zod's namespace export (`z.locales`) keeps all of its ~50 message locales in the bundle: 366 KB,
 * half of zod and a sixth of what a turn compiles. Pincer's messages are English (zod's default,
 * configured from locales/en.js directly), so the namespace carries English only.
 */
const englishZodLocales = {
  name: 'english-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`)
        ? { path: path.resolve(path.dirname(args.importer), args.path), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};\n`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/** Node's rule for a file's module format: .cjs, .mjs, else the nearest package.json's "type". */
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).type !== 'module';
    } catch {}
  }
  return true;
}

/**
 * A split bundle gives `await import('pkg')` of a CommonJS package a chunk whose only export is
 * `default` (esbuild cannot know module.exports' names when it writes ESM), so
 * `(await import('grammy')).Bot` is undefined from dist/ while Node finds it. Such an import is
 * routed through a facade that re-exports, by name, the very exports Node's own import gives the
 * package (read here by importing it), with `default` as module.exports, as Node does.
 */
const lazyCommonJs = {
  name: 'lazy-commonjs-named-exports',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'facade') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'facade',
      });
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) {
        return undefined;
      }
      return { path: resolved.path, namespace: 'cjs-facade' };
    });
    build.onLoad({ filter: /.*/, namespace: 'cjs-facade' }, async (args) => {
      const names = Object.keys(await import(pathToFileURL(args.path).href)).filter(
        (name) => name !== 'default' && name !== 'module.exports',
      );
      const lines = [`const m = require(${JSON.stringify(args.path)});`, 'export default m;'];
      names.forEach((name, i) => {
        lines.push(
          `const e${i} = m[${JSON.stringify(name)}];`,
          `export { e${i} as ${JSON.stringify(name)} };`,
        );
      });
      return { contents: lines.join('\n'), resolveDir: path.dirname(args.path), loader: 'js' };
    });
  },
};

await rm('dist', { recursive: true, force: true });
const result = await build({
  entryPoints: { cli: 'src/main/cli.ts', 'sandbox-worker': 'src/main/core/sandbox/worker.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The terminal dashboard is React (Ink): .tsx with the automatic runtime.
  jsx: 'automatic',
  chunkNames: 'chunk-[hash]',
  external: [...NATIVE, ...OPTIONAL],
  // Bundled CommonJS calls `require` for Node built-ins; ESM has none unless made.
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import { createRequire as __pincerCreateRequire } from 'node:module';",
      'const require = __pincerCreateRequire(import.meta.url);',
    ].join('\n'),
  },
  plugins: [englishZodLocales, lazyCommonJs],
  metafile: process.argv.includes('--metafile'),
  logLevel: 'warning',
  legalComments: 'none',
});
if (result.metafile) {
  const { writeFile } = await import('node:fs/promises');
  await writeFile('dist/meta.json', JSON.stringify(result.metafile));
}
