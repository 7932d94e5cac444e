/**
 * The built CLI on each LTS line it supports besides the one running the suite (Node 22),
 * as prepared by `node scripts/node-runtimes.mjs` (the release from the registry, and
 * better-sqlite3 built for its ABI). A copy of `dist/` runs under that Node as a user's would:
 * version, doctor (every native module loaded), a text turn stored in SQLite and listed again.
 * CI prepares the runtimes before `npm test`; elsewhere the suite says how and leaves them out.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TESTED_NODE_MAJORS } from '../../src/main/core/doctor/node-check.js';
import { installCli, type NodeRuntime, preparedRuntime } from '../support/node-runtimes.js';
import { type CliResult, type Env, Product, repoRoot } from './support/harness.js';

const product = new Product();
afterAll(() => product.cleanUp());

function runOn(runtime: NodeRuntime, cli: string, args: string[], env: Env): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.node, [cli, ...args], {
      cwd: runtime.app,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

for (const major of TESTED_NODE_MAJORS) {
  const runtime = preparedRuntime(major);
  if (!runtime) {
    const how = `Node ${major} is not prepared: run \`node scripts/node-runtimes.mjs\` (CI does)`;
    if (process.env.CI) {
      it(`Node ${major}: prepared`, () => {
        throw new Error(how);
      });
    } else {
      it(`Node ${major}: prepared`, (context) => {
        console.warn(`skipped: ${how}`);
        context.skip(how);
      });
    }
    continue;
  }

  describe(`the built CLI on Node ${runtime.version}`, () => {
    it('reports its version, loads every native module, and stores a text turn', async () => {
      const cli = await installCli(runtime);
      const scratch = await product.scratch(`node${major}`);

      const version = await runOn(runtime, cli, ['--version'], scratch.env);
      const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
      expect(version.stdout.trim(), version.stderr).toContain(pkg.version);

      const doctor = await runOn(runtime, cli, ['doctor', '--json'], scratch.env);
      expect(doctor.code, doctor.stderr).not.toBeGreaterThan(1);
      const report = JSON.parse(doctor.stdout) as {
        checks: Array<{ id: string; status: string; summary: string; details?: unknown }>;
      };
      const check = (id: string) => report.checks.find((c) => c.id === id);
      expect(check('node'), doctor.stdout).toMatchObject({
        status: 'ok',
        details: { version: runtime.version },
      });
      expect(check('native-modules'), doctor.stdout).toMatchObject({ status: 'ok' });

      const turn = await runOn(
        runtime,
        cli,
        ['run', ...scratch.model.args, 'hello there'],
        scratch.env,
      );
      expect(turn.code, turn.stderr).toBe(0);
      expect(turn.stdout).toContain('echo: hello there');
      const listed = await runOn(runtime, cli, ['runs', 'list', '--json'], scratch.env);
      expect(JSON.parse(listed.stdout)).toMatchObject([
        { goal: 'hello there', outcome: 'completed' },
      ]);
    });
  });
}
