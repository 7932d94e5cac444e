import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBoundaryViolations } from '../support/boundary.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('house rules: module boundaries', () => {
  it('holds for the whole source tree', async () => {
    expect(await findBoundaryViolations(repoRoot)).toEqual([]);
  });

  describe('detects violations in a scratch tree', () => {
    let scratch = '';
    afterEach(async () => {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    async function tree(files: Record<string, string>): Promise<string> {
      scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-boundary-'));
      for (const [name, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(scratch, name)), { recursive: true });
        await writeFile(path.join(scratch, name), text);
      }
      return scratch;
    }

    it('flags electron imported by core, statically, dynamically or by require', async () => {
      const root = await tree({
        'src/main/core/a.ts': "import { app } from 'electron';\nexport const a = app;\n",
        'src/main/core/b.ts': "export const b = () => import('electron');\n",
        'src/main/core/c.ts': "const e = require('electron');\nexport { e };\n",
        'src/main/app/ok.ts': "import { app } from 'electron';\nexport { app };\n",
        'src/preload/ok.ts':
          "import { contextBridge } from 'electron';\nexport { contextBridge };\n",
      });
      const found = await findBoundaryViolations(root);
      expect(found.map((v) => v.file).sort()).toEqual([
        'src/main/core/a.ts',
        'src/main/core/b.ts',
        'src/main/core/c.ts',
      ]);
    });

    it('flags core importing the shell or the renderer', async () => {
      const root = await tree({
        'src/main/core/agent/x.ts': "import { w } from '../../app/window.js';\nexport { w };\n",
        'src/main/core/y.ts': "export { App } from '../../renderer/src/App';\n",
      });
      const rules = (await findBoundaryViolations(root)).map((v) => v.rule).sort();
      expect(rules).toEqual([
        'core must not import the Electron shell',
        'core must not import the renderer',
        'layer order: agent (layer 3) imports app (layer 4)',
      ]);
    });

    it('flags a module importing a higher layer, and a cycle within one layer', async () => {
      const root = await tree({
        // policy (layer 1) reaching up into memory (layer 2)
        'src/main/core/policy/rules.ts': "import { d } from '../memory/index.js';\nexport { d };\n",
        'src/main/core/memory/index.ts': "export { d } from './threads.js';\n",
        'src/main/core/memory/threads.ts': 'export const d = 1;\n',
        // tools -> sandbox -> tools, both layer 1
        'src/main/core/tools/net.ts': "import { a } from '../sandbox/index.js';\nexport { a };\n",
        'src/main/core/sandbox/index.ts': "export { t as a } from '../tools/index.js';\n",
        'src/main/core/tools/index.ts': "export { t } from './types.js';\n",
        'src/main/core/tools/types.ts': 'export const t = 1;\n',
        // an unplaced module is named, not ignored
        'src/main/core/extra/x.ts': "export { d } from '../memory/index.js';\n",
      });
      const rules = (await findBoundaryViolations(root)).map((v) => v.rule).sort();
      expect(rules).toEqual([
        'import cycle: sandbox -> tools -> sandbox',
        'layer order: policy (layer 1) imports memory (layer 2)',
        'module extra has no layer',
      ]);
    });

    it('flags a module reached past its index, except by a lazy import()', async () => {
      const root = await tree({
        'src/main/core/memory/index.ts': "export { d } from './threads.js';\n",
        'src/main/core/memory/threads.ts': 'export const d = 1;\n',
        'src/main/core/dates.ts': 'export const today = 1;\n',
        'src/main/core/agent/static.ts':
          "import { d } from '../memory/threads.js';\nexport { d };\n",
        'src/main/core/agent/reexport.ts': "export { d } from '../memory/threads.js';\n",
        'src/main/core/agent/ok.ts': [
          "import { d } from '../memory/index.js';",
          "import { today } from '../dates.js';",
          "export const lazy = () => import('../memory/threads.js');",
          'export { d, today };',
        ].join('\n'),
      });
      const found = await findBoundaryViolations(root);
      expect(found.map((v) => `${v.file}: ${v.rule}`).sort()).toEqual([
        'src/main/core/agent/reexport.ts: module memory is imported through src/main/core/memory/index.ts',
        'src/main/core/agent/static.ts: module memory is imported through src/main/core/memory/index.ts',
      ]);
    });

    it('flags export * in any index, and index exports no other source module uses', async () => {
      const root = await tree({
        'src/main/core/memory/index.ts': [
          "export { d, unused } from './threads.js';",
          "import { lazy } from './lazy.js';",
          'export { lazy };',
          'export const own = 1;',
        ].join('\n'),
        'src/main/core/memory/threads.ts': 'export const d = 1;\nexport const unused = 2;\n',
        'src/main/core/memory/lazy.ts': 'export const lazy = 1;\n',
        // a use inside the folder does not count; a dynamic, destructured import does
        'src/main/core/memory/inner.ts': "export { unused } from './index.js';\n",
        'src/main/core/agent/uses.ts': [
          "import { d } from '../memory/index.js';",
          "export const later = async () => { const { lazy } = await import('../memory/index.js'); return lazy; };",
          'export { d };',
        ].join('\n'),
        'src/main/core/agent/index.ts': "export * from './uses.js';\n",
        'src/main/cli/main.ts': "export { later } from '../core/agent/index.js';\n",
        'src/preload/index.ts': "export * from '../shared/api.js';\n",
        'src/shared/api.ts': 'export const api = 1;\n',
      });
      const found = await findBoundaryViolations(root);
      expect(found.map((v) => `${v.file}: ${v.rule}`).sort()).toEqual([
        'src/main/core/agent/index.ts: an index names what it exports: no export *',
        'src/main/core/memory/index.ts: index exports unused, which no other module uses',
        'src/preload/index.ts: an index names what it exports: no export *',
      ]);
    });

    it('flags impure shared code and a renderer reaching into main', async () => {
      const root = await tree({
        'src/shared/s.ts': "import fs from 'node:fs';\nexport { fs };\n",
        'src/renderer/src/r.tsx': "import { x } from '../../main/core/x';\nexport { x };\n",
      });
      const rules = (await findBoundaryViolations(root)).map((v) => v.rule).sort();
      expect(rules).toEqual([
        'shared code is pure: no node:, no electron',
        'the renderer reaches the core only through IPC',
      ]);
    });
  });
});
