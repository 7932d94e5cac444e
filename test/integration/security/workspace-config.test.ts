/**
 * The workspace does not configure the tools: a cloned repository's `.gitconfig`, its
 * `.git/config` (fsmonitor, hooks, protocols) and a `usercustomize.py` or `.pth` under the
 * workspace's `.local` ran code on allowed commands while HOME was the workspace. Commands,
 * tool workers and MCP servers now get a fresh empty HOME and the config-injection variables
 * neutralised. Real bwrap, real git and python3, each payload writing a marker file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import type { RunId, StepId } from '../../../src/main/core/terms.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import type { ToolHost } from '../../../src/main/core/tools/host.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { hostileTools } from '../sandbox/fixtures/hostile-tools.js';

let root = '';
let workspace = '';
let markers = '';
let sandbox: Sandbox;
let host: ToolHost;

const context = () => ({
  signal: new AbortController().signal,
  runId: 'run' as RunId,
  stepId: 'step' as StepId,
});
const exec = (command: string, args: string[]) =>
  host.execute(
    { id: 'c', name: 'sys/exec', input: { command, args, timeout_ms: 20_000 } },
    context(),
  );
const marker = (name: string) => path.join(markers, name);

/** A payload that leaves a marker named `name` (in the workspace, which the sandbox may write). */
const payload = (name: string) => `touch ${marker(name)}`;

const pythonVersion = execFileSync(
  'python3',
  ['-c', 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")'],
  {
    encoding: 'utf8',
  },
).trim();

beforeAll(async () => {
  const backend = await detectBackend();
  if (backend.kind !== 'bwrap')
    throw new Error(
      `the workspace config tests need bubblewrap (${backend.reason}); CI installs it`,
    );
  root = await realpath(await mkdtemp(path.join('/var/tmp', 'pincer-ws-config-')));
  workspace = path.join(root, 'workspace');
  markers = path.join(workspace, 'markers');
  await mkdir(markers, { recursive: true });

  // A repository as a hostile clone ships it (a tarball keeps .git/config and .git/hooks).
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q');
  await writeFile(path.join(workspace, 'notes.md'), 'notes\n');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'notes.md');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'first');
  const fsmonitor = path.join(workspace, 'fsmonitor.sh');
  await writeFile(fsmonitor, `#!/bin/sh\n${payload('repo-fsmonitor')}\nexit 1\n`);
  await chmod(fsmonitor, 0o755);
  const hooks = path.join(workspace, 'hooks');
  await mkdir(hooks);
  for (const hook of ['post-checkout', 'pre-commit', 'reference-transaction']) {
    for (const dir of [hooks, path.join(workspace, '.git', 'hooks')]) {
      await writeFile(path.join(dir, hook), `#!/bin/sh\n${payload(`hook-${hook}`)}\n`);
      await chmod(path.join(dir, hook), 0o755);
    }
  }
  git('config', 'core.fsmonitor', fsmonitor);
  git('config', 'core.hooksPath', hooks);
  git('config', 'protocol.ext.allow', 'always');
  git('config', 'core.pager', `${payload('repo-pager')}; cat`);

  // The workspace's own "home" files, read when HOME was the workspace.
  await writeFile(
    path.join(workspace, '.gitconfig'),
    `[core]\n\tfsmonitor = ${path.join(workspace, 'global-fsmonitor.sh')}\n[alias]\n\tst = !${payload('global-alias')}\n`,
  );
  await writeFile(
    path.join(workspace, 'global-fsmonitor.sh'),
    `#!/bin/sh\n${payload('global-fsmonitor')}\nexit 1\n`,
  );
  await chmod(path.join(workspace, 'global-fsmonitor.sh'), 0o755);
  const userSite = path.join(workspace, '.local', 'lib', `python${pythonVersion}`, 'site-packages');
  await mkdir(userSite, { recursive: true });
  const touch = (name: string) =>
    `import pathlib; pathlib.Path(${JSON.stringify(marker(name))}).touch()`;
  await writeFile(path.join(userSite, 'usercustomize.py'), `${touch('usercustomize')}\n`);
  await writeFile(path.join(userSite, 'sitecustomize.py'), `${touch('user-sitecustomize')}\n`);
  await writeFile(path.join(userSite, 'evil.pth'), `${touch('user-pth')}\n`);
  await writeFile(path.join(workspace, 'sitecustomize.py'), `${touch('cwd-sitecustomize')}\n`);
  await writeFile(path.join(workspace, 'startup.py'), `${touch('pythonstartup')}\n`);
  await writeFile(
    path.join(workspace, 'preload.js'),
    `require('node:fs').writeFileSync(${JSON.stringify(marker('node-options'))}, '');\n`,
  );

  sandbox = await createSandbox({
    backend,
    settings: sandboxSettings({ workspace, dataDir: path.join(root, 'data'), home: root }),
    pool: {
      size: 1,
      onlineSize: 0,
      modules: [path.join(import.meta.dirname, '..', 'sandbox', 'fixtures', 'hostile-tools.ts')],
    },
  });
  const registry = new ToolRegistry();
  for (const tool of [...BUILTIN_TOOLS, ...hostileTools]) registry.register(tool);
  host = registry.host({
    allow: ['**'],
    workspace,
    executor: sandbox.executor,
    // Variables a manifest could offer the tools: none of these may reconfigure them.
    env: {
      NODE_OPTIONS: `--require ${path.join(workspace, 'preload.js')}`,
      PYTHONSTARTUP: path.join(workspace, 'startup.py'),
      PYTHONPATH: workspace,
      GIT_CONFIG_GLOBAL: path.join(workspace, '.gitconfig'),
      LD_PRELOAD: path.join(workspace, 'evil.so'),
      npm_config_script_shell: path.join(workspace, 'fsmonitor.sh'),
    },
  });
}, 60_000);

// Each test starts with no marker: one that appears is that test's payload.
beforeEach(async () => {
  for (const name of await readdir(markers)) await rm(path.join(markers, name));
});

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('an allowed git command does not run what the workspace configured', () => {
  it('git status: neither the workspace .gitconfig nor the repository fsmonitor runs', async () => {
    const result = await exec('git', ['status', '--short']);
    expect(result.content).toMatch(/\[exit code 0\]$/);
    expect(await readdir(markers)).toEqual([]);
  });

  it('git checkout -b: no hook from core.hooksPath or .git/hooks runs', async () => {
    const result = await exec('git', ['checkout', '-q', '-b', 'other']);
    expect(result.content).toMatch(/\[exit code 0\]$/);
    expect(await readdir(markers)).toEqual([]);
  });

  it('the ext:: transport stays off though the repository allows it', async () => {
    const result = await exec('git', ['ls-remote', `ext::sh -c touch% ${marker('ext-transport')}`]);
    expect(result.isError).toBe(true);
    expect(existsSync(marker('ext-transport'))).toBe(false);
  });

  it('git log and a workspace alias: no pager, no alias from the workspace .gitconfig', async () => {
    await exec('git', ['log', '-1', '--oneline']);
    await exec('git', ['st']);
    expect(await readdir(markers)).toEqual([]);
  });
});

describe('an approved python3 -c does not run what the workspace planted', () => {
  it('no usercustomize, sitecustomize or .pth from the workspace, no PYTHONSTARTUP', async () => {
    const result = await exec('python3', ['-c', 'import sys; print("ok", sys.flags.no_user_site)']);
    expect(result.content).toMatch(/^ok 1\n\[exit code 0\]$/);
    expect(await readdir(markers)).toEqual([]);
  });
});

describe('the sandbox HOME is fresh and empty, and the injection variables are neutralised', () => {
  it('a command: HOME is an empty folder that is not the workspace', async () => {
    const result = await exec('/bin/sh', [
      '-c',
      'echo "home=$HOME"; ls -A "$HOME" | wc -l; echo "ws=$PWD"; env | sort',
    ]);
    const home = /home=(.*)/.exec(result.content)?.[1];
    expect(home).toBeDefined();
    expect(home).not.toBe(workspace);
    expect(path.relative(workspace, home as string).startsWith('..')).toBe(true);
    expect(result.content).toMatch(/home=.*\n0\n/);
    for (const name of ['NODE_OPTIONS=', 'PYTHONSTARTUP=', 'PYTHONPATH=', 'LD_PRELOAD='])
      expect(result.content).not.toContain(`\n${name}`);
    expect(result.content).toContain('\nGIT_CONFIG_GLOBAL=/dev/null\n');
    expect(result.content).toContain('\nGIT_CONFIG_NOSYSTEM=1\n');
    expect(result.content).toContain('\nPYTHONNOUSERSITE=1\n');
    // Pinned, not the workspace's program the tools were offered.
    expect(result.content).toContain('\nnpm_config_script_shell=/bin/sh\n');
  });

  it('node: NODE_OPTIONS offered to the tools does not preload workspace code', async () => {
    const result = await exec('node', ['-e', 'console.log(require("node:os").homedir())']);
    expect(result.content).toMatch(/\[exit code 0\]$/);
    expect(result.content).not.toContain(workspace);
    expect(await readdir(markers)).toEqual([]);
  });

  it('a JS tool worker: its HOME is not the workspace either', async () => {
    const result = await host.execute({ id: 'w', name: 'hostile/env', input: {} }, context());
    const env = JSON.parse(result.content as string) as Record<string, string>;
    expect(env.HOME).toBeDefined();
    expect(env.HOME).not.toBe(workspace);
    expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
  });

  it('an MCP server: HOME is fresh though its config said the workspace', async () => {
    const server = sandbox.spawnServer({
      argv: [
        '/bin/sh',
        '-c',
        'echo "$HOME"; ls -A "$HOME" | wc -l; test -n "$NODE_OPTIONS" && echo set || echo none',
      ],
      env: {
        PATH: '/usr/bin:/bin',
        HOME: workspace,
        NODE_OPTIONS: `--require ${path.join(workspace, 'preload.js')}`,
      },
      network: false,
    });
    let out = '';
    server.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    await new Promise((resolve) => server.child.once('close', resolve));
    await server.stop();
    const [home, count, options] = out.trim().split('\n');
    expect(home).not.toBe(workspace);
    expect(count?.trim()).toBe('0');
    expect(options).toBe('none');
  });
});

describe('without an OS sandbox (the process backend)', () => {
  it('a command still gets a fresh empty HOME of its own, removed after it', async () => {
    const backend = await detectBackend({ forceProcess: true });
    const plain = await createSandbox({
      backend,
      settings: sandboxSettings({ workspace, dataDir: path.join(root, 'data'), home: root }),
      pool: false,
    });
    try {
      const registry = new ToolRegistry();
      for (const tool of BUILTIN_TOOLS) registry.register(tool);
      const local = registry.host({ allow: ['**'], workspace, executor: plain.executor });
      const result = await local.execute(
        {
          id: 'p',
          name: 'sys/exec',
          input: { command: '/bin/sh', args: ['-c', 'echo "$HOME"; ls -A "$HOME" | wc -l'] },
        },
        context(),
      );
      const [home, count] = result.content.split('\n');
      expect(home).toMatch(/pincer-home-/);
      expect(home).not.toBe(workspace);
      expect(count?.trim()).toBe('0');
      await expect.poll(() => existsSync(home as string)).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
