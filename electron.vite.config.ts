import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { RENDERER_CSP } from './src/shared/csp';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * electron-vite keeps `dependencies` out of the main bundle but not optional ones: keytar was
 * bundled, its native addon copied into out/main as built for Node, which Electron cannot load
 * (electron-builder rebuilds node_modules/keytar for Electron, not that copy).
 */
const optionalDependencies = Object.keys(
  (
    JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
      optionalDependencies?: Record<string, string>;
    }
  ).optionalDependencies ?? {},
);

/** Production HTML carries the CSP as a meta tag too, so it holds outside Electron as well. */
function cspMetaTag(): Plugin {
  return {
    name: 'pincer-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: RENDERER_CSP },
        injectTo: 'head-prepend',
      },
    ],
  };
}

export default defineConfig({
  main: {
    build: {
      externalizeDeps: { include: optionalDependencies },
      // The sandbox's tool worker sits beside the main bundle, where the worker pool looks for it.
      rollupOptions: {
        input: {
          index: resolve(root, 'src/main/app/main.ts'),
          'sandbox-worker': resolve(root, 'src/main/core/sandbox/worker.ts'),
        },
      },
    },
  },
  preload: {
    // A sandboxed preload cannot load modules from disk: bundle everything, emit CommonJS.
    build: {
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    plugins: [react(), cspMetaTag()],
    build: {
      minify: true,
      rollupOptions: { input: { index: resolve(root, 'src/renderer/index.html') } },
    },
  },
});
