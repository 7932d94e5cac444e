/**
 * `npm run dist:check` on the real built bundle (npm run build first), as a user runs it: the
 * script itself, in its own process. It once failed on a fresh clone, reading words in strings
 * ("Error from", "disconnected from") as imports, while its unit test never saw the real bundle.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { bundleImports } from '../../scripts/dist-check.js';
import { repoRoot } from '../support/cli-run.js';

const run = promisify(execFile);

it('passes on the built main bundle, having read its imports', async () => {
  const main = path.join(repoRoot, 'out/main/index.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const tsx = path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs');
  const result = await run(process.execPath, [tsx, 'scripts/dist-check.ts', '--json'], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
  const report = JSON.parse(result.stdout ?? '{}') as { errors?: string[] };
  expect(report.errors, result.stderr).toEqual([]);
  expect('code' in result ? result.code : 0).toBe(0);
  // Not vacuous: the parser sees the packages the main process really loads.
  const imports = new Set<string>();
  for (const file of readdirSync(path.dirname(main), { recursive: true, encoding: 'utf8' }))
    if (file.endsWith('.js'))
      for (const specifier of await bundleImports(path.join(path.dirname(main), file)))
        imports.add(specifier);
  for (const name of ['better-sqlite3', 'grammy', 'node-llama-cpp', 'keytar'])
    expect(
      [...imports].some((specifier) => specifier === name),
      name,
    ).toBe(true);
});
