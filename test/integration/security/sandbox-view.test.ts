/**
 * Security regressions for the tools' view of the filesystem (issue 24): commands and workers see
 * the system read-only, the workspace and their grants, and nothing of the user's home or of
 * Pincer's data dir; fs/search globs cannot leave the workspace. Real bwrap, real workers, a
 * scratch home with fake credentials nobody put on a deny list.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import type { RunId, StepId } from '../../../src/main/core/terms.js';
import { fsSearch } from '../../../src/main/core/tools/builtins/fs.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import type { ToolHost } from '../../../src/main/core/tools/host.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { runTool } from '../../../src/main/core/tools/run-tool.js';
import { hostileTools } from '../sandbox/fixtures/hostile-tools.js';

/** Credential files no deny list names: the allowlist view alone must hide them. */
const CREDENTIALS: Record<string, string> = {
  '.npmrc': '//registry.npmjs.org/:_authToken=NPM-TOKEN-5f1e',
  '.claude/.credentials.json': '{"accessToken":"CLAUDE-TOKEN-8a2b"}',
  '.pypirc': '[pypi]\npassword = PYPI-PASSWORD-3c9d',
  '.pgpass': 'db:5432:*:admin:PGPASS-SECRET-7e4f',
  '.bash_history': 'export GITHUB_TOKEN=HISTORY-TOKEN-1d6a',
  'Documents/passwords.txt': 'bank: DOCUMENT-PASSWORD-9f0a',
};
const LEAKS =
  /NPM-TOKEN|CLAUDE-TOKEN|PYPI-PASSWORD|PGPASS-SECRET|HISTORY-TOKEN|DOCUMENT-PASSWORD|DATA-DIR-SECRET/;
const DB_SECRET = 'DATA-DIR-SECRET-2b7c';

let root = '';
let home = '';
let dataDir = '';
let workspace = '';
let sandbox: Sandbox;
let host: ToolHost;

const context = () => ({
  signal: new AbortController().signal,
  runId: 'run' as RunId,
  stepId: 'step' as StepId,
});
const call = (name: string, input: Record<string, unknown>) =>
  host.execute({ id: 'c', name, input }, context());
const sh = (command: string) => call('sys/exec', { command, shell: true, timeout_ms: 10_000 });

beforeAll(async () => {
  const backend = await detectBackend();
  if (backend.kind !== 'bwrap')
    throw new Error(`the sandbox view tests need bubblewrap (${backend.reason}); CI installs it`);
  // Not under /tmp: the sandbox's private /tmp would hide the scratch home whatever the view.
  root = await mkdtemp(path.join('/var/tmp', 'pincer-view-'));
  home = path.join(root, 'home');
  // The usual layout: the data dir, and so the workspace, inside the user's home.
  dataDir = path.join(home, '.config', 'Pincer');
  workspace = path.join(dataDir, 'workspace', 'me');
  for (const [name, content] of Object.entries(CREDENTIALS)) {
    await mkdir(path.dirname(path.join(home, name)), { recursive: true });
    await writeFile(path.join(home, name), content);
  }
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(dataDir, 'pincer.db'), DB_SECRET);
  await writeFile(path.join(workspace, 'notes.md'), 'hello notes\n');
  await symlink(home, path.join(workspace, 'home-link'));

  sandbox = await createSandbox({
    backend,
    // No extra denied paths: what hides the credentials is the view, not a list.
    settings: sandboxSettings({ workspace, dataDir, home }),
    pool: {
      size: 1,
      onlineSize: 0,
      modules: [path.join(import.meta.dirname, '..', 'sandbox', 'fixtures', 'hostile-tools.ts')],
    },
  });
  const registry = new ToolRegistry();
  for (const tool of [...BUILTIN_TOOLS, ...hostileTools]) registry.register(tool);
  host = registry.host({ allow: ['**'], workspace, executor: sandbox.executor });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('sys/exec sees no credential file of the home and nothing of the data dir', () => {
  it('cat of each credential file by absolute path', async () => {
    for (const name of Object.keys(CREDENTIALS)) {
      const result = await call('sys/exec', { command: 'cat', args: [path.join(home, name)] });
      expect(result.isError, name).toBe(true);
      expect(result.content, name).toContain('No such file or directory');
    }
  });

  it('sh -c reads, a find over the home, and the data dir', async () => {
    const names = Object.keys(CREDENTIALS).map((name) => path.join(home, name));
    const reads = await sh(`cat ${names.join(' ')} ${path.join(dataDir, 'pincer.db')}`);
    expect(reads.isError).toBe(true);
    expect(reads.content).not.toMatch(LEAKS);
    // Only the path down to the workspace exists: the home and data dir are not mounted.
    const found = await sh(`find ${home} -mindepth 1 -maxdepth 3 | sort`);
    expect(found.content).toBe(
      [path.join(home, '.config'), dataDir, path.join(dataDir, 'workspace'), '[exit code 0]'].join(
        '\n',
      ),
    );
  });

  it('the workspace symlink to the home leads nowhere', async () => {
    const result = await sh('cat home-link/.npmrc home-link/.pgpass; ls -A home-link/');
    expect(result.content).not.toMatch(LEAKS);
    expect(result.content).toMatch(
      /No such file or directory[\s\S]*No such file or directory\n\.config\n/,
    );
  });

  it('/home, /root and the real home of the user are not there', async () => {
    const result = await sh(`ls -A /home /root ${os.homedir()} 2>/dev/null | wc -l`);
    expect(result.content.split('\n')[0]?.trim()).toBe('0');
  });

  it('the system is read-only and /etc holds no password database', async () => {
    const result = await sh(
      'touch /pwned /etc/pwned /usr/pwned 2>&1; test -e /etc/shadow && echo SHADOW; test -e /etc/gshadow && echo GSHADOW; true',
    );
    expect(result.content).toMatch(/Read-only file system|Permission denied/);
    expect(result.content).not.toMatch(/SHADOW/);
  });

  it('common commands still work: sh, ls, cat, git --version, node -e, awk, id', async () => {
    const result = await sh(
      'echo shell-ok && ls && cat notes.md && git --version && node -e "console.log(6*7)" && echo a b | awk "{print \\$2}" && id -u && echo tmp > /tmp/x && cat /tmp/x',
    );
    expect(result.content).toMatch(
      /^shell-ok\nhome-link\nnotes\.md\nhello notes\ngit version [^\n]+\n42\nb\n\d+\ntmp\n\[exit code 0\]$/,
    );
    const plain = await call('sys/exec', { command: 'ls', args: ['-1'] });
    expect(plain.content).toBe('home-link\nnotes.md\n[exit code 0]');
  });
});

describe('JS tool workers see the same view', () => {
  it('raw reads of each credential file and of the data dir fail', async () => {
    for (const file of [
      ...Object.keys(CREDENTIALS).map((name) => path.join(home, name)),
      path.join(dataDir, 'pincer.db'),
      path.join(os.homedir(), '.bashrc'),
    ]) {
      const result = await call('hostile/read', { path: file });
      expect(result.isError, file).toBe(true);
      expect(result.content, file).toContain('ENOENT');
    }
  });

  it('file tools still work in the workspace', async () => {
    expect(await call('fs/read', { path: 'notes.md' })).toMatchObject({ content: 'hello notes\n' });
    expect((await call('fs/write', { path: 'out.txt', content: 'ok' })).isError).toBeFalsy();
    expect(await readFile(path.join(workspace, 'out.txt'), 'utf8')).toBe('ok');
  });
});

describe('fs/search: a glob is a path too', () => {
  const escapes = () => [
    path.join(home, '.npmrc'),
    '/etc/hostname',
    '../../../../../etc/hostname',
    '../../../../../../../../../../etc/hostname',
    '**/../../pincer.db',
    '~/.npmrc',
    '$HOME/.npmrc',
    'C:/Windows/win.ini',
    '{..,x}/pincer.db',
  ];

  it('absolute, home, variable and .. patterns are refused before searching (sandboxed)', async () => {
    for (const glob of escapes()) {
      const result = await call('fs/search', { pattern: '.', glob });
      expect(result.isError, glob).toBe(true);
      expect(result.content, glob).toMatch(/glob .* (must be relative|cannot go up)/);
    }
  });

  it('the same refusals hold in-process, without any OS confinement', async () => {
    for (const glob of escapes()) {
      const result = await runTool(
        fsSearch,
        { pattern: '.', glob },
        { workspace },
        new AbortController().signal,
      );
      expect(result.isError, glob).toBe(true);
      expect(result.content, glob).not.toMatch(LEAKS);
    }
  });

  it('matches through a symlinked folder are dropped (real-path check of every match)', async () => {
    for (const glob of ['home-link/*', 'home-link/.npmrc', 'home-link/**', 'home-link/*/*.txt']) {
      const result = await runTool(
        fsSearch,
        { pattern: '.', glob },
        { workspace },
        new AbortController().signal,
      );
      expect(result.content, glob).not.toMatch(LEAKS);
      expect(result.content, glob).toBe('no matches');
    }
  });

  it('a plain glob still searches the workspace', async () => {
    expect(await call('fs/search', { pattern: 'hello', glob: '*.md' })).toMatchObject({
      content: 'notes.md:1: hello notes',
    });
    const direct = await runTool(
      fsSearch,
      { pattern: 'hello', glob: '**/*.md' },
      { workspace },
      new AbortController().signal,
    );
    expect(direct.content).toBe('notes.md:1: hello notes');
  });
});
