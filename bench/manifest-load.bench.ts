/**
 * What full manifest loading costs: YAML.parse of Appendix A's files (baseline: parsing only)
 * against loadClaw (parse + references + globs + zod + normative rules + Ajv + cross-refs).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { parseAllDocuments } from 'yaml';
import { loadClaw } from '../src/main/core/ckp/loader.js';
import { measure, report } from './lib.js';

export async function run(): Promise<void> {
  const dir = path.resolve(import.meta.dirname, '../test/fixtures/ckp/appendix-a');
  const files = await glob('**/*.yaml', { cwd: dir, absolute: true });
  const manifest = path.join(dir, 'claw.yaml');
  const results = await measure(
    [
      {
        name: `read + YAML parse ${files.length} files`,
        fn: () => {
          for (const file of files)
            for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) doc.toJS();
        },
      },
      { name: 'loadClaw(Appendix A)', fn: () => loadClaw(manifest) },
    ],
    { samples: 15, iterations: 20 },
  );
  report('manifest-load: Appendix A, parse only vs full load and validation', results);
}
