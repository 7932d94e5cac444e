/**
 * What a confined MCP server sees, for every shape of argument a config can hold: its own
 * program read-only and exactly the folder a person named, never that folder's parent; the
 * home's credentials and Pincer's data dir stay hidden even when a grant names or contains
 * them. Real bwrap, a scratch home full of canaries (fake credentials), and a real child
 * process started the way the MCP client starts a server, which tries to read each canary.
 */
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';

/** Fake credentials and private files of the scratch home (relative to it). */
const CANARIES: Record<string, string> = {
  '.ssh/id_ed25519': 'CANARY-SSH-KEY',
  '.gnupg/private-keys-v1.d/key.key': 'CANARY-GPG-KEY',
  '.aws/credentials': 'CANARY-AWS-SECRET',
  '.vault-token': 'CANARY-VAULT-TOKEN',
  '.cargo/credentials.toml': 'CANARY-CARGO-TOKEN',
  '.config/google-chrome/Default/Login Data': 'CANARY-CHROME-LOGINS',
  '.mozilla/firefox/abc.default/logins.json': 'CANARY-FIREFOX-LOGINS',
  '.docker/config.json': 'CANARY-DOCKER-AUTH',
  '.bashrc': 'CANARY-BASHRC',
  'projects/other/.env': 'CANARY-OTHER-PROJECT-ENV',
  // Pincer's data dir, inside the home as usual.
  '.config/Pincer/profiles/default/pincer.db': 'CANARY-PINCER-DB',
  '.config/Pincer/secrets/vault.pincer': 'CANARY-PINCER-VAULT',
  '.config/Pincer/gateway.json': 'CANARY-GATEWAY-TOKEN',
};
const LEAK = /CANARY-[A-Z-]+/g;

let root = '';
let home = '';
let dataDir = '';
let workspace = '';
let probe = '';
let topLevel = '';
let topLevelMade = false;
let sandbox: Sandbox;

/**
 * A program that reads every path it is given on stdin (a JSON list) and prints what it got:
 * the content, or the error code. It stands for a careless or hostile server.
 */
const PROBE = `import { readFileSync, readdirSync } from 'node:fs';
const paths = JSON.parse(readFileSync(0, 'utf8'));
const out = {};
for (const p of paths) {
  try { out[p] = readFileSync(p, 'utf8'); }
  catch (e) {
    if (e.code === 'EISDIR') { try { out[p] = readdirSync(p).join(','); } catch (d) { out[p] = d.code; } }
    else out[p] = e.code;
  }
}
process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), out }));
`;

beforeAll(async () => {
  const backend = await detectBackend();
  if (backend.kind !== 'bwrap')
    throw new Error(
      `the MCP server view tests need bubblewrap (${backend.reason}); CI installs it`,
    );
  // Not under /tmp: the private /tmp of the sandbox would hide the home whatever the view.
  root = await realpath(await mkdtemp(path.join('/var/tmp', 'pincer-mcp-view-')));
  home = path.join(root, 'home');
  dataDir = path.join(home, '.config', 'Pincer');
  workspace = path.join(dataDir, 'workspace', 'me');
  for (const [name, content] of Object.entries(CANARIES)) {
    await mkdir(path.dirname(path.join(home, name)), { recursive: true });
    await writeFile(path.join(home, name), content);
  }
  await mkdir(workspace, { recursive: true });
  await mkdir(path.join(home, 'Documents'), { recursive: true });
  await writeFile(path.join(home, 'Documents', 'readme.txt'), 'granted-document');
  await symlink(home, path.join(root, 'home-link'));
  probe = path.join(root, 'probe', 'probe.mjs');
  await mkdir(path.dirname(probe), { recursive: true });
  await writeFile(probe, PROBE);
  // A folder directly under the root, as `/srv` or `/data` would be.
  try {
    topLevel = await mkdtemp('/pincer-mcp-view-');
    topLevelMade = true;
  } catch {
    topLevel = '/srv';
    console.log('cannot create a folder under / (not root): /srv stands for one');
  }
  if (topLevelMade) await writeFile(path.join(topLevel, 'file.txt'), 'top-level-file');

  sandbox = await createSandbox({
    backend,
    settings: sandboxSettings({ workspace, dataDir, home }),
    pool: false,
  });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
  if (topLevelMade) await rm(topLevel, { recursive: true, force: true });
});

interface ProbeResult {
  code: number | null;
  stderr: string;
  argv: string[];
  out: Record<string, string>;
}

/** Starts the probe as an MCP server with `args`, confined, and asks it to read `paths`. */
async function serverReads(args: string[], paths: string[]): Promise<ProbeResult> {
  const server = sandbox.spawnServer({
    argv: [process.execPath, probe, ...args],
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: workspace },
    network: false,
  });
  let stdout = '';
  let stderr = '';
  server.child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  server.child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => {
    server.child.once('close', (exit) => resolve(exit));
    server.child.stdin.end(JSON.stringify(paths));
  });
  await server.stop();
  const parsed = stdout
    ? (JSON.parse(stdout) as { argv: string[]; out: ProbeResult['out'] })
    : undefined;
  return { code, stderr, argv: parsed?.argv ?? [], out: parsed?.out ?? {} };
}

const canaryPaths = () => [
  ...Object.keys(CANARIES).map((name) => path.join(home, name)),
  home,
  path.join(home, '.ssh'),
  dataDir,
];

/** The probe started, and no canary (file or folder listing) reached it. */
function expectNoLeak(result: ProbeResult, shape: string): void {
  expect(result.code, `${shape}: ${result.stderr}`).toBe(0);
  const leaked = JSON.stringify(result.out).match(LEAK) ?? [];
  expect(leaked, shape).toEqual([]);
  // A listing of the home would show the names even where the contents are masked.
  expect(result.out[home], shape).not.toMatch(/\.bashrc|projects/);
}

describe('an MCP server sees its own program and the folder it was given, nothing around it', () => {
  it('a folder in the home: exactly that folder, not the home', async () => {
    const documents = path.join(home, 'Documents');
    const result = await serverReads(
      [documents],
      [...canaryPaths(), path.join(documents, 'readme.txt')],
    );
    expectNoLeak(result, 'folder in the home');
    expect(result.out[path.join(documents, 'readme.txt')]).toBe('granted-document');
  });

  it('a file in the home: that file alone', async () => {
    const file = path.join(home, 'Documents', 'readme.txt');
    const result = await serverReads([file], [...canaryPaths(), file]);
    expectNoLeak(result, 'file in the home');
    expect(result.out[file]).toBe('granted-document');
  });

  it('the data dir itself: the deny wins over the grant', async () => {
    const result = await serverReads([dataDir], canaryPaths());
    expectNoLeak(result, 'the data dir');
  });

  it('a folder under the data dir (its secrets): the deny wins', async () => {
    const result = await serverReads([path.join(dataDir, 'secrets')], canaryPaths());
    expectNoLeak(result, 'a folder under the data dir');
    const db = await serverReads([path.join(dataDir, 'profiles', 'default')], canaryPaths());
    expectNoLeak(db, 'the profile folder');
  });

  it('a credential folder named outright (~/.ssh, ~/.aws): the deny wins', async () => {
    const result = await serverReads(
      [path.join(home, '.ssh'), path.join(home, '.aws'), path.join(home, '.cargo')],
      canaryPaths(),
    );
    expectNoLeak(result, 'credential folders');
  });

  it('the home, `/`, and a path with .. that climbs to the home: never shown whole', async () => {
    for (const arg of [home, '/', path.join(home, 'Documents', '..'), `${home}/`]) {
      const result = await serverReads([arg], canaryPaths());
      expectNoLeak(result, arg);
    }
  });

  it('a folder that contains credentials (~/.config): granted, with the credentials masked', async () => {
    const config = path.join(home, '.config');
    await mkdir(path.join(config, 'app'), { recursive: true });
    await writeFile(path.join(config, 'app', 'settings.json'), 'app-settings');
    const result = await serverReads(
      [config],
      [...canaryPaths(), path.join(config, 'app', 'settings.json')],
    );
    expectNoLeak(result, '~/.config');
    expect(result.out[path.join(config, 'app', 'settings.json')]).toBe('app-settings');
  });

  it('a folder directly under /: the server starts and sees that folder', async () => {
    const result = await serverReads(
      [topLevel],
      [...canaryPaths(), path.join(topLevel, 'file.txt')],
    );
    expectNoLeak(result, topLevel);
    if (topLevelMade) expect(result.out[path.join(topLevel, 'file.txt')]).toBe('top-level-file');
  });

  it('a relative path: nothing beyond the workspace', async () => {
    const result = await serverReads(
      ['../../../../.bashrc', '../../..', 'Documents'],
      [...canaryPaths(), '../../../../.bashrc', '../../../../Documents/readme.txt'],
    );
    expectNoLeak(result, 'relative paths');
    expect(result.out['../../../../Documents/readme.txt']).toBe('ENOENT');
  });

  it('a symlink to the home: the home is not shown through it', async () => {
    const link = path.join(root, 'home-link');
    const result = await serverReads(
      [link],
      [...canaryPaths(), path.join(link, '.bashrc'), path.join(link, '.vault-token'), link],
    );
    expectNoLeak(result, 'symlink to the home');
  });

  it('a symlink to a granted folder: the folder is reachable through the link as given', async () => {
    const link = path.join(root, 'docs-link');
    await symlink(path.join(home, 'Documents'), link);
    const result = await serverReads([link], [...canaryPaths(), path.join(link, 'readme.txt')]);
    expectNoLeak(result, 'symlink to Documents');
    expect(result.out[path.join(link, 'readme.txt')]).toBe('granted-document');
  });
});

describe('a server installed with plain npm install starts: its dependencies resolve as Node resolves them', () => {
  let project = '';

  beforeAll(async () => {
    // The layout npm makes: the server's dependencies hoisted beside it, one nested, a scoped
    // one, a bin link, and packages the server does not depend on next to them.
    project = path.join(root, 'project');
    const modules = path.join(project, 'node_modules');
    const pkg = async (dir: string, json: object, files: Record<string, string>) => {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'package.json'), JSON.stringify(json));
      for (const [name, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await writeFile(path.join(dir, name), text);
      }
    };
    await pkg(
      path.join(modules, 'fake-server'),
      {
        name: 'fake-server',
        type: 'module',
        bin: { 'fake-server': 'bin/server.js' },
        dependencies: { 'hoisted-dep': '1.0.0', '@scope/scoped-dep': '1.0.0', nested: '2.0.0' },
      },
      {
        'bin/server.js': `#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import hoisted from 'hoisted-dep';
import scoped from '@scope/scoped-dep';
import nested from 'nested';
const probe = (p) => { try { return readFileSync(p, 'utf8'); } catch (e) { return e.code; } };
process.stdout.write(JSON.stringify({
  imports: [hoisted, scoped, nested],
  unrelated: probe(${JSON.stringify(path.join(modules, 'unrelated', 'secret.txt'))}),
  projectEnv: probe(${JSON.stringify(path.join(project, '.env'))}),
  bashrc: probe(${JSON.stringify(path.join(home, '.bashrc'))}),
}));
`,
        'node_modules/nested/package.json': JSON.stringify({ name: 'nested', main: 'index.js' }),
        'node_modules/nested/index.js': "module.exports = 'nested-2';",
      },
    );
    await pkg(
      path.join(modules, 'hoisted-dep'),
      { name: 'hoisted-dep', main: 'index.js', dependencies: { 'deep-dep': '1.0.0' } },
      { 'index.js': "module.exports = 'hoisted:' + require('deep-dep');" },
    );
    await pkg(
      path.join(modules, 'deep-dep'),
      { name: 'deep-dep', exports: { '.': './lib/main.js' } },
      { 'lib/main.js': "module.exports = 'deep';" },
    );
    await pkg(
      path.join(modules, '@scope', 'scoped-dep'),
      { name: '@scope/scoped-dep', main: 'index.js' },
      { 'index.js': "module.exports = 'scoped';" },
    );
    await pkg(
      path.join(modules, 'nested'),
      { name: 'nested', main: 'index.js' },
      { 'index.js': "module.exports = 'nested-1';" },
    );
    await pkg(
      path.join(modules, 'unrelated'),
      { name: 'unrelated' },
      { 'secret.txt': 'CANARY-UNRELATED' },
    );
    await writeFile(path.join(project, '.env'), 'CANARY-PROJECT-ENV');
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ dependencies: { 'fake-server': '1.0.0' } }),
    );
    await mkdir(path.join(modules, '.bin'), { recursive: true });
    await symlink('../fake-server/bin/server.js', path.join(modules, '.bin', 'fake-server'));
    await chmod(path.join(modules, 'fake-server', 'bin', 'server.js'), 0o755);
  });

  async function start(argv: string[]) {
    const server = sandbox.spawnServer({
      argv,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: workspace },
      network: false,
    });
    let stdout = '';
    let stderr = '';
    server.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    server.child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => {
      server.child.once('close', (exit) => resolve(exit));
      server.child.stdin.end();
    });
    await server.stop();
    return { code, stdout, stderr };
  }

  it('node PATH/TO/server.js: hoisted, transitive, scoped and nested dependencies import', async () => {
    const run = await start([
      process.execPath,
      path.join(project, 'node_modules', 'fake-server', 'bin', 'server.js'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      imports: ['hoisted:deep', 'scoped', 'nested-2'],
      unrelated: 'ENOENT',
      projectEnv: 'ENOENT',
      bashrc: 'ENOENT',
    });
  });

  it('the bin link npm makes (node_modules/.bin/NAME) starts the same server', async () => {
    const run = await start([path.join(project, 'node_modules', '.bin', 'fake-server')]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).imports).toEqual(['hoisted:deep', 'scoped', 'nested-2']);
  });

  it('a dependency name that climbs out (../../) is not followed', async () => {
    const evil = path.join(project, 'node_modules', 'evil-server');
    await mkdir(evil, { recursive: true });
    await writeFile(
      path.join(evil, 'package.json'),
      JSON.stringify({
        name: 'evil-server',
        dependencies: { '../../../home': '1.0.0', '..': '1' },
      }),
    );
    await writeFile(
      path.join(evil, 'index.js'),
      `const fs = require('node:fs');
const probe = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return e.code; } };
process.stdout.write(JSON.stringify([probe(${JSON.stringify(path.join(home, '.bashrc'))}), probe(${JSON.stringify(path.join(project, '.env'))})]));`,
    );
    const run = await start([process.execPath, path.join(evil, 'index.js')]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(['ENOENT', 'ENOENT']);
  });
});

describe('the view is computed before bwrap starts, and bwrap starts', () => {
  it('the probe itself still runs when given no argument at all', async () => {
    const result = await serverReads([], canaryPaths());
    expectNoLeak(result, 'no argument');
  });
});
