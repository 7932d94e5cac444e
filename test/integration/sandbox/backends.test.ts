/**
 * Backend choice and fail-loud behaviour: a level the machine cannot enforce is refused with
 * CKP -32010 before any tool runs; the process-level backend says what it lacks and still
 * applies limits, the minimal environment, the timeout and the shell rules.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSandbox } from '../../../src/main/core/doctor/sandbox-check.js';
import { assertLevel, detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { SANDBOX_DENIED, SandboxError } from '../../../src/main/core/sandbox/errors.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { runTool } from '../../../src/main/core/tools/run-tool.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-backends-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const tool = (name: string) => {
  const found = BUILTIN_TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(name);
  return found;
};

describe('levels that cannot be enforced fail loudly', () => {
  it('refuses wasm and vm anywhere, and container on the process backend (CKP -32010)', async () => {
    const bwrap = await detectBackend();
    const processOnly = await detectBackend({ forceProcess: true });
    expect(() => assertLevel('process', processOnly)).not.toThrow();
    expect(() => assertLevel('container', bwrap)).not.toThrow();
    for (const [level, backend] of [
      ['container', processOnly],
      ['vm', bwrap],
      ['wasm', bwrap],
    ] as const) {
      let thrown: unknown;
      try {
        assertLevel(level, backend);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, level).toBeInstanceOf(SandboxError);
      expect((thrown as SandboxError).code).toBe(SANDBOX_DENIED);
      expect((thrown as SandboxError).message).toContain('Refusing to run tools unconfined');
    }
    await expect(
      createSandbox({
        backend: processOnly,
        settings: sandboxSettings({ workspace, level: 'container' }),
        pool: false,
      }),
    ).rejects.toMatchObject({ code: SANDBOX_DENIED });
  });
});

describe('workers that cannot start', () => {
  it('stop the sandbox from opening (CKP -32010) instead of running tools elsewhere', async () => {
    await expect(
      createSandbox({
        settings: sandboxSettings({ workspace }),
        pool: { size: 1, onlineSize: 0, entry: { file: '/nonexistent/worker.js', execArgv: [] } },
      }),
    ).rejects.toMatchObject({
      code: SANDBOX_DENIED,
      message: expect.stringContaining('could not start'),
    });
  });
});

describe("the workers' installation", () => {
  it('loads from a checkout under /tmp whose node_modules is a symlink (real paths bound)', async () => {
    // CI runs a fresh clone in `mktemp -d`; node_modules may be linked from elsewhere.
    const installation = await mkdtemp(path.join(os.tmpdir(), 'pincer-install-'));
    try {
      await symlink(
        realpathSync(path.join(import.meta.dirname, '..', '..', '..', 'node_modules')),
        path.join(installation, 'node_modules'),
      );
      const file = path.join(installation, 'worker.mjs');
      await writeFile(
        file,
        [
          "import { glob } from 'tinyglobby';",
          "import { Socket } from 'node:net';",
          // The pool's channel: NDJSON on fd 3; it closes when the pool goes away.
          'const channel = new Socket({ fd: 3, readable: true, writable: true });',
          "channel.on('end', () => process.exit(0));",
          "channel.write(JSON.stringify({ type: 'ready', tools: [typeof glob] }) + '\\n');",
        ].join('\n'),
      );
      const sandbox = await createSandbox({
        settings: sandboxSettings({ workspace }),
        pool: { size: 1, onlineSize: 0, entry: { file, execArgv: [] } },
      });
      await sandbox.close();
    } finally {
      await rm(installation, { recursive: true, force: true });
    }
  });
});

describe('filesystem modes under bwrap', () => {
  it('read-only: commands cannot write the workspace; deny: no file access at all', async () => {
    const readOnly = await createSandbox({
      settings: sandboxSettings({ workspace, filesystem: { mode: 'read-only' } }),
      pool: false,
    });
    const touch = await runTool(
      tool('sys/exec'),
      { command: 'touch ro.txt', shell: true },
      { workspace, executor: readOnly.executor },
      new AbortController().signal,
    );
    expect(touch.content).toContain('Read-only file system');
    await readOnly.close();
    // The workers start with the workspace hidden from them, and every file tool is refused.
    const denied = await createSandbox({
      settings: sandboxSettings({ workspace, filesystem: { mode: 'deny' } }),
      pool: { size: 1, onlineSize: 0 },
    });
    for (const [name, input] of [
      ['fs/list', {}],
      ['sys/exec', { command: 'ls' }],
    ] as const) {
      const result = await runTool(
        tool(name),
        input,
        { workspace, executor: denied.executor },
        new AbortController().signal,
      );
      expect(result.content, name).toContain('no file access');
    }
    await denied.close();
  });
});

describe('the process-level backend', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({
      backend: await detectBackend({ forceProcess: true }),
      settings: sandboxSettings({
        workspace,
        shell: { blockedPatterns: ['\\bsudo\\b'] },
        limits: { maxFileBytes: 1024 * 1024 },
      }),
      pool: { size: 1, onlineSize: 0 },
    });
  }, 30_000);
  afterAll(async () => {
    await sandbox.close();
  });

  const run = (name: string, input: Record<string, unknown>) =>
    runTool(
      tool(name),
      input,
      { workspace, env: { GITHUB_TOKEN: 'ghp-offered' }, executor: sandbox.executor },
      new AbortController().signal,
    );

  it('says it does not confine files or network', () => {
    expect(sandbox.backend.kind).toBe('process');
    expect(sandbox.backend.warnings.join(' ')).toContain('does not confine their files or network');
  });

  it('still applies the minimal environment, the timeout, the file-size limit and the shell rules', async () => {
    const env = await run('sys/exec', { command: 'env' });
    // A fresh folder of its own (the workspace must not configure the tools).
    expect(env.content).toMatch(/^HOME=.*pincer-home-/m);
    expect(env.content).not.toContain(`HOME=${workspace}`);
    expect(env.content).not.toContain('ghp-offered');
    const slow = await run('sys/exec', { command: 'sleep', args: ['20'], timeout_ms: 300 });
    expect(slow.content).toContain('-32014');
    const big = await run('sys/exec', {
      command: 'head -c 100000000 /dev/zero > big.bin',
      shell: true,
    });
    expect(big.isError).toBe(true);
    expect((await stat(path.join(workspace, 'big.bin'))).size).toBeLessThanOrEqual(1024 * 1024);
    const sudo = await run('sys/exec', { command: 'sudo id', shell: true });
    expect(sudo.content).toContain('sandbox_denied');
  });

  it('runs JS tools in a worker that still refuses paths outside the workspace', async () => {
    expect((await run('fs/write', { path: 'ok.txt', content: 'fine' })).isError).toBeFalsy();
    expect((await run('fs/read', { path: 'ok.txt' })).content).toBe('fine');
    expect((await run('fs/read', { path: '/etc/passwd' })).isError).toBe(true);
  });
});

describe('pids cgroups (root only: the kernel never applies RLIMIT_NPROC to root)', () => {
  it('a start removes the cgroups of Pincer processes that are gone', async () => {
    const backend = await detectBackend();
    if (!backend.pidsCgroupRoot) {
      // Not root, or no writable pids cgroup: then RLIMIT_NPROC (root: a warning) covers it.
      expect(!backend.asRoot || backend.warnings.join(' ').includes('max processes')).toBe(true);
      return;
    }
    const gone = spawnSync('true').pid as number;
    const stale = path.join(backend.pidsCgroupRoot, `pincer-${gone}-1`);
    mkdirSync(stale);
    await detectBackend();
    expect(existsSync(stale)).toBe(false);
  });

  it('closing a sandbox leaves no cgroup of its own behind', async () => {
    const sandbox = await createSandbox({
      settings: sandboxSettings({ workspace }),
      pool: { size: 1, onlineSize: 0 },
    });
    const root = sandbox.backend.pidsCgroupRoot;
    await runTool(
      tool('sys/exec'),
      { command: 'true' },
      { workspace, executor: sandbox.executor },
      new AbortController().signal,
    );
    await sandbox.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = root
      ? readdirSync(root).filter((name) => name.startsWith(`pincer-${process.pid}-`))
      : [];
    expect(mine).toEqual([]);
  });
});

describe('pincer doctor', () => {
  it("names the active backend and why, after a command and a worker ran the tools' way", async () => {
    const check = await checkSandbox();
    const backend = await detectBackend();
    expect(check.details?.backend).toBe(backend.kind);
    expect(check.summary).toContain(`${backend.kind}: ${backend.reason}`);
    expect(check.details?.probe).toBe(
      'a confined command and a tool worker ran in a scratch workspace',
    );
  });

  it('fails where the tools fail, though bare bwrap runs (a worker that cannot load its imports)', async () => {
    // A worker script that imports a module outside its installation: fine on the host, not in
    // the tools' view. A probe of bwrap alone (`bwrap ... true`) passes here.
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-doctor-worker-'));
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'pincer-doctor-dep-'));
    try {
      await writeFile(path.join(elsewhere, 'dep.mjs'), 'export const dep = 1;\n');
      const file = path.join(scratch, 'worker.mjs');
      await writeFile(
        file,
        [
          `import ${JSON.stringify(path.join(elsewhere, 'dep.mjs'))};`,
          "import { Socket } from 'node:net';",
          'const channel = new Socket({ fd: 3, readable: true, writable: true });',
          "channel.on('end', () => process.exit(0));",
          'channel.write(\'{"type":"ready","tools":[]}\\n\');',
        ].join('\n'),
      );
      const entry = { file, execArgv: [] };
      expect((await detectBackend()).kind).toBe('bwrap');
      const check = await checkSandbox({ workerEntry: entry });
      expect(check.status).toBe('fail');
      expect(check.summary).toMatch(/tools cannot run: .*worker/);
      await expect(
        createSandbox({
          settings: sandboxSettings({ workspace }),
          pool: { size: 1, onlineSize: 0, entry },
        }),
      ).rejects.toMatchObject({ code: SANDBOX_DENIED });
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
