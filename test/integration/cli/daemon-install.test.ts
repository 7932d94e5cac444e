/**
 * `pincer daemon install|uninstall` through the built CLI, a real child process, with HOME and
 * XDG_CONFIG_HOME in a temporary folder (its name has a space and a quote) and a stand-in
 * `systemctl` first on PATH: a real program that records the arguments it is called with. The
 * unit is checked as written, by `systemd-analyze verify` where that exists, and the commands,
 * idempotency, the refusal to touch a unit Pincer did not write, and uninstall are checked.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { builtCli, runBuiltCli } from '../../support/cli-run.js';

let root = '';

beforeAll(() => {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run npm run build first`);
});
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

function hasSystemdAnalyze(): boolean {
  return spawnSync('systemd-analyze', ['--version']).status === 0;
}

async function setUp(systemctlExit = 0) {
  root = await mkdtemp(path.join(os.tmpdir(), `pincer install "q" `));
  const bin = path.join(root, 'bin');
  await mkdir(bin);
  const calls = path.join(root, 'systemctl-calls.log');
  // One line per call, arguments separated by a tab.
  await writeFile(
    path.join(bin, 'systemctl'),
    `#!/bin/sh\n(IFS='\t'; printf '%s\\n' "$*") >> '${calls.replace(/'/g, `'\\''`)}'\nexit ${systemctlExit}\n`,
  );
  await chmod(path.join(bin, 'systemctl'), 0o755);
  const dataDir = path.join(root, `data dir $HOME 100%`);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: root,
    XDG_CONFIG_HOME: path.join(root, 'config'),
    PINCER_HOME: dataDir,
    PINCER_KEYCHAIN: 'off',
  };
  const unit = path.join(root, 'config', 'systemd', 'user', 'pincer.service');
  const readCalls = async () =>
    existsSync(calls)
      ? (await readFile(calls, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => line.split('\t').join(' '))
      : [];
  return { env, unit, dataDir, readCalls, calls };
}

const FLAGS = [
  '--protocol',
  'openai-compatible',
  '--endpoint',
  'http://127.0.0.1:9/v1',
  '--model',
  'm',
  '--drain',
  '20',
];

it('installs a systemd user unit, runs systemctl, is idempotent and uninstalls', async () => {
  const { env, unit, dataDir, readCalls, calls } = await setUp();
  const manifest = path.join(root, `my "claw".yaml`);

  const dry = await runBuiltCli(
    ['daemon', 'install', '--dry-run', ...FLAGS, '--manifest', manifest],
    { env },
  );
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain(`would write ${unit}`);
  expect(dry.stdout).toContain('systemctl --user enable --now pincer.service');
  expect(existsSync(unit)).toBe(false);
  expect(await readCalls()).toEqual([]);

  const installed = await runBuiltCli(['daemon', 'install', ...FLAGS, '--manifest', manifest], {
    env,
  });
  expect(installed.code, installed.stderr).toBe(0);
  expect(installed.stdout).toContain('installed pincer.service');
  const text = await readFile(unit, 'utf8');
  const entry = realpathSync(builtCli);
  const dataWord = dataDir.replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  const manifestWord = manifest.replace(/"/g, '\\"');
  expect(text).toContain(
    `ExecStart="${process.execPath}" "${entry}" "daemon" "--data-dir" "${dataWord}" ` +
      `"--drain" "20" "--manifest" "${manifestWord}" "--protocol" "openai-compatible" ` +
      `"--endpoint" "http://127.0.0.1:9/v1" "--model" "m"`,
  );
  expect(text).toContain('Restart=on-failure');
  expect(text).toContain('KillSignal=SIGTERM');
  expect(text).toContain('TimeoutStopSec=35');
  expect(await readCalls()).toEqual(['--user daemon-reload', '--user enable --now pincer.service']);

  if (hasSystemdAnalyze()) {
    // System mode: --user wants a running user manager, which a test machine may lack.
    const verified = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stderr).not.toMatch(/pincer\.service:/);
  } else {
    console.log('systemd-analyze is not installed here: the unit is not verified by systemd');
  }

  // Again with the same settings: nothing written, nothing run.
  await rm(calls);
  const again = await runBuiltCli(['daemon', 'install', ...FLAGS, '--manifest', manifest], {
    env,
  });
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/already installed with these settings/);
  expect(await readCalls()).toEqual([]);

  // Other settings: the unit is rewritten and the service restarted.
  const changed = await runBuiltCli(['daemon', 'install', ...FLAGS, '--no-attach'], { env });
  expect(changed.code, changed.stderr).toBe(0);
  expect(changed.stdout).toContain('updated pincer.service');
  expect(await readFile(unit, 'utf8')).toContain('"--no-attach"');
  expect(await readFile(unit, 'utf8')).not.toContain('--manifest');
  expect(await readCalls()).toEqual([
    '--user daemon-reload',
    '--user enable pincer.service',
    '--user restart pincer.service',
  ]);

  await rm(calls);
  const removed = await runBuiltCli(['daemon', 'uninstall'], { env });
  expect(removed.code, removed.stderr).toBe(0);
  expect(removed.stdout).toContain('uninstalled pincer.service');
  expect(existsSync(unit)).toBe(false);
  expect(await readCalls()).toEqual([
    '--user disable --now pincer.service',
    '--user daemon-reload',
  ]);

  const none = await runBuiltCli(['daemon', 'uninstall'], { env });
  expect(none.code).toBe(0);
  expect(none.stdout).toContain('not installed');
});

it('never overwrites or removes a unit Pincer did not write', async () => {
  const { env, unit, readCalls } = await setUp();
  const theirs = '[Service]\nExecStart=/usr/bin/true\n';
  await mkdir(path.dirname(unit), { recursive: true });
  await writeFile(unit, theirs);
  for (const command of [
    ['daemon', 'install', ...FLAGS],
    ['daemon', 'uninstall'],
  ]) {
    const result = await runBuiltCli(command, { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${unit} exists and was not written by Pincer`);
  }
  expect(await readFile(unit, 'utf8')).toBe(theirs);
  expect(await readCalls()).toEqual([]);
});

it('reports a failing systemctl with exit 1 and what is left to run', async () => {
  const { env, unit } = await setUp(1);
  const result = await runBuiltCli(['daemon', 'install', ...FLAGS], { env });
  expect(result.code).toBe(1);
  expect(result.stdout).toContain('failed (exit 1): systemctl --user daemon-reload');
  expect(result.stdout).toContain('  systemctl --user enable --now pincer.service');
  expect(existsSync(unit)).toBe(true);
});

it('prints the systemctl commands when systemctl is not on PATH', async () => {
  const { env, unit } = await setUp();
  // A PATH with node's folder only: no systemctl there.
  const nodeOnly = path.join(root, 'node-only');
  await mkdir(nodeOnly);
  execFileSync('ln', ['-s', process.execPath, path.join(nodeOnly, 'node')]);
  const result = await runBuiltCli(['daemon', 'install', ...FLAGS], {
    env: { ...env, PATH: nodeOnly },
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain('systemctl is not available here; run these yourself:');
  expect(result.stdout).toContain('  systemctl --user enable --now pincer.service');
  expect(existsSync(unit)).toBe(true);
});

it('carries the CKP and MCP listener flags into the unit, and refuses a token the service would not see', async () => {
  const { env, unit } = await setUp();
  const ckp = [
    '--ckp-http',
    '7411',
    '--ckp-ws',
    '7412',
    '--mcp-http',
    '7413',
    '--ckp-host',
    '127.0.0.1',
  ];
  const installed = await runBuiltCli(['daemon', 'install', ...FLAGS, ...ckp], { env });
  expect(installed.code, installed.stderr).toBe(0);
  expect(await readFile(unit, 'utf8')).toContain(
    '"--ckp-http" "7411" "--ckp-ws" "7412" "--mcp-http" "7413" "--ckp-host" "127.0.0.1"',
  );

  // The service does not get this shell's environment: a token named there could never be read.
  const withEnv = await runBuiltCli(
    ['daemon', 'install', ...FLAGS, '--ckp-http', '7411', '--ckp-token-env', 'CKP_TOKEN'],
    { env: { ...env, CKP_TOKEN: 'set-here-only' } },
  );
  expect(withEnv.code).toBe(2);
  expect(withEnv.stderr).toMatch(/CKP_TOKEN would be unset there/);
  expect(withEnv.stderr).toContain(path.join('daemon', 'ckp-token'));
  expect(withEnv.stderr + withEnv.stdout).not.toContain('set-here-only');

  const badPort = await runBuiltCli(['daemon', 'install', ...FLAGS, '--ckp-http', '70000'], {
    env,
  });
  expect(badPort.code).toBe(2);
  expect(badPort.stderr).toMatch(/a CKP, MCP or A2A port is 0-65535/);
  const badMcpPort = await runBuiltCli(['daemon', 'install', ...FLAGS, '--mcp-http', 'x'], { env });
  expect(badMcpPort.code).toBe(2);
  expect(badMcpPort.stderr).toMatch(/a CKP, MCP or A2A port is 0-65535/);
  const hostAlone = await runBuiltCli(['daemon', 'install', ...FLAGS, '--ckp-host', '0.0.0.0'], {
    env,
  });
  expect(hostAlone.code).toBe(2);
  expect(hostAlone.stderr).toMatch(/go with --ckp-http, --ckp-ws, --mcp-http or --a2a-http/);
  // The unit written first is untouched by the refused installs.
  expect(await readFile(unit, 'utf8')).toContain('"--ckp-http" "7411"');
}, 60_000);
