/**
 * Issue 24, breaks 6 and 7: grants never disable a safety check, and command rules parse what
 * runs. The network half runs net/fetch in the real sandbox (bwrap, worker pool) against real
 * HTTP servers on 127.0.0.1; the command half decides calls with the shipped default manifest
 * plus a user's allow rules, as `pincer run` would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClaw } from '../../../src/main/core/ckp/loader.js';
import { autonomyOf, policyRules } from '../../../src/main/core/ckp/resolved.js';
import { PolicyEngine } from '../../../src/main/core/policy/engine.js';
import { detectBackend } from '../../../src/main/core/sandbox/backend.js';
import { createSandbox, type Sandbox } from '../../../src/main/core/sandbox/sandbox.js';
import { sandboxSettings } from '../../../src/main/core/sandbox/settings.js';
import type { RunId, SessionId, StepId } from '../../../src/main/core/terms.js';
import { BUILTIN_TOOLS } from '../../../src/main/core/tools/builtins/index.js';
import { checkHop, netFetch } from '../../../src/main/core/tools/builtins/net.js';
import type { ToolHost } from '../../../src/main/core/tools/host.js';
import { ToolRegistry } from '../../../src/main/core/tools/registry.js';
import { addUserRules, shippedClaw, writeDocument } from '../../support/manifest.js';

describe('network: a host allowlist narrows, it never opens an internal address', () => {
  let root = '';
  let sandbox: Sandbox;
  let host: ToolHost;
  const servers: Server[] = [];
  const hits = { target: 0 };
  let targetPort = 0;
  let grantedPort = 0;

  const listen = (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    return new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  };
  const fetch = (url: string) =>
    host.execute(
      { id: 'c', name: 'net/fetch', input: { url } },
      { signal: new AbortController().signal, runId: 'run' as RunId, stepId: 'step' as StepId },
    );

  beforeAll(async () => {
    const backend = await detectBackend();
    if (backend.kind !== 'bwrap')
      throw new Error(`these attacks run in the real sandbox (${backend.reason}); CI has bwrap`);
    root = await mkdtemp(path.join(os.tmpdir(), 'pincer-netcmd-'));
    targetPort = await listen((_req, res) => {
      hits.target += 1;
      res.end('TARGET REACHED');
    });
    grantedPort = await listen((req, res) => {
      if (req.url === '/to-localhost')
        return res.writeHead(302, { location: `http://localhost:${targetPort}/` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('granted ok');
    });
    sandbox = await createSandbox({
      backend,
      settings: sandboxSettings({
        workspace: root,
        dataDir: path.join(root, 'data'),
        home: path.join(root, 'home'),
        // A name that resolves to loopback, and one private address granted as an address.
        network: { mode: 'allowlist', allowedHosts: ['localhost', `127.0.0.1:${grantedPort}`] },
      }),
      pool: { size: 0, onlineSize: 1 },
    });
    const registry = new ToolRegistry();
    for (const tool of BUILTIN_TOOLS) registry.register(tool);
    host = registry.host({ allow: ['**'], workspace: root, executor: sandbox.executor });
  }, 60_000);

  afterAll(async () => {
    await sandbox?.close();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('a listed name that resolves to 127.0.0.1 is refused; the address grant works', async () => {
    const before = hits.target;
    const refused = await fetch(`http://localhost:${targetPort}/`);
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining('internal') });
    expect(hits.target).toBe(before);
    expect((await fetch(`http://127.0.0.1:${grantedPort}/`)).content).toBe(
      'HTTP 200 text/plain\n\ngranted ok',
    );
    // The grant is for that port only.
    const otherPort = await fetch(`http://127.0.0.1:${targetPort}/`);
    expect(otherPort.isError).toBe(true);
    expect(hits.target).toBe(before);
  });

  it('a redirect from the granted address to a listed name that is loopback is refused', async () => {
    const before = hits.target;
    const result = await fetch(`http://127.0.0.1:${grantedPort}/to-localhost`);
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('internal') });
    expect(hits.target).toBe(before);
  });

  it('a wildcard that resolves to loopback or the metadata service is refused', async () => {
    const dns = async (name: string) =>
      ({ 'home.pincer.test': ['127.0.0.1'], 'meta.pincer.test': ['169.254.169.254'] })[name] ?? [];
    const scope = {
      mode: 'allowlist' as const,
      allowedHosts: ['*.pincer.test'],
      blockPrivate: true,
    };
    for (const name of ['home.pincer.test', 'meta.pincer.test']) {
      await expect(checkHop(new URL(`http://${name}/`), scope, false, dns), name).rejects.toThrow(
        /internal address/,
      );
    }
  });

  it('IPv6 spellings of loopback and metadata are classified by the IPv4 they carry', async () => {
    const open = { mode: 'allow-all' as const, allowedHosts: [], blockPrivate: true };
    const noDns = async () => [];
    for (const literal of [
      '[::127.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[::ffff:0:7f00:1]',
      '[64:ff9b::169.254.169.254]',
      '[2002:a9fe:a9fe::1]',
      '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
      '[fd00:ec2::254]',
    ]) {
      await expect(
        checkHop(new URL(`http://${literal}:${targetPort}/`), open, false, noDns),
        literal,
      ).rejects.toThrow(/internal address/);
    }
    // And the tool itself, with no allowlist to stop it first: refused before any connection.
    const before = hits.target;
    const result = await netFetch
      .run(
        { url: `http://[::127.0.0.1]:${targetPort}/` },
        { signal: new AbortController().signal, workspace: root, env: {}, network: open },
      )
      .catch((error: Error) => ({ content: error.message, isError: true }));
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('internal') });
    expect(hits.target).toBe(before);
  });
});

describe('commands: rules match what runs', () => {
  let dir = '';
  let engine: PolicyEngine;
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);

  /** The shipped manifest, autonomous, with the user's command rules where its comment says. */
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-rules-'));
    const doc = await shippedClaw();
    doc.setIn(['spec', 'identity', 'inline', 'autonomy'], 'autonomous');
    const shell = { category: 'shell' };
    addUserRules(doc, [
      {
        id: 'allow-git',
        action: 'allow',
        scope: 'category',
        match: shell,
        conditions: { command: 'git *' },
      },
      {
        id: 'allow-programs',
        action: 'allow',
        scope: 'category',
        match: shell,
        conditions: { command: '* *' },
      },
      {
        id: 'allow-ls-line',
        action: 'allow',
        scope: 'category',
        match: shell,
        conditions: { command: 'ls -la', shell: true },
      },
    ]);
    const file = await writeDocument(dir, doc);
    const claw = await loadClaw(file, { contextDir: dir });
    expect(claw.warnings).toEqual([]);
    engine = new PolicyEngine({
      rules: policyRules(claw),
      autonomy: autonomyOf(claw) ?? 'supervised',
      facts: (name) => registry.facts(name),
      context: { workspace: path.join(dir, 'workspace'), home: dir },
    });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const decide = (input: Record<string, unknown>) =>
    engine.decide(
      { id: 'c', name: 'sys/exec', input },
      {
        runId: 'run' as RunId,
        sessionId: 'ses' as SessionId,
        stepId: 'stp' as StepId,
        readOnly: false,
      },
    );

  it('`git --version; id` as a shell line is not covered by `git *`: it asks', async () => {
    const decision = await decide({ command: 'git --version; id', shell: true });
    expect(decision).toMatchObject({ action: 'ask', rule: 'default/approve-shell' });
    // A shell: true rule covers its own line exactly, and nothing appended to it.
    expect(await decide({ command: 'ls -la', shell: true })).toMatchObject({
      action: 'allow',
      rule: 'default/allow-ls-line',
    });
    expect(await decide({ command: 'ls -la; id', shell: true })).toMatchObject({ action: 'ask' });
  });

  it('the argv forms the allow rules were written for are allowed', async () => {
    for (const [command, args, rule] of [
      ['git', ['status'], 'allow-git'],
      ['git', ['push', '-u', 'origin', 'main'], 'allow-git'],
      ['git', ['add', '-u'], 'allow-git'],
      ['find', ['.', '-name', '*.md'], 'allow-programs'],
      ['awk', ['{print $1}', 'notes.md'], 'allow-programs'],
      ['tar', ['-xzf', 'a.tgz'], 'allow-programs'],
      ['rsync', ['-av', '--delete', 'a/', 'b/'], 'allow-programs'],
      ['sh', ['build.sh'], 'allow-programs'],
    ] as const) {
      expect(await decide({ command, args: [...args] }), `${command} ${args.join(' ')}`).toEqual(
        expect.objectContaining({ action: 'allow', rule: `default/${rule}` }),
      );
    }
  });

  it('a rule whose shell or command has the wrong type is a manifest error, not a looser rule', async () => {
    const doc = await shippedClaw();
    doc.setIn(['spec', 'policies', 0, 'inline', 'rules', 0, 'conditions'], {
      command: 'git *',
      shell: 'yes',
    });
    const file = await writeDocument(dir, doc, 'bad.yaml');
    await expect(loadClaw(file, { contextDir: dir })).rejects.toThrow(/conditions\.shell/);
  });

  // Programs whose only job is running another: refused by the default manifest.
  it.each([
    ['xargs', ['id']],
    ['env', ['id']],
    ['timeout', ['5', 'id']],
    ['nohup', ['id']],
    ['sudo', ['id']],
  ] as const)('%s %j is refused by deny-program-launchers', async (command, args) => {
    expect(await decide({ command, args: [...args] })).toMatchObject({
      action: 'deny',
      rule: 'default/deny-program-launchers',
    });
  });

  // Each known argument-level escape: the `* *` rule does not cover it; a person is asked,
  // for this call only, and told what it runs.
  it.each([
    ['git', ['-c', 'alias.x=!id', 'x']],
    ['git', ['-c', 'core.sshCommand=id', 'fetch', 'origin']],
    ['git', ['-c', 'core.pager=id', 'log']],
    ['git', ['--config-env=alias.x=X', 'x']],
    ['git', ['clone', '--config', 'core.fsmonitor=id', 'u', 'd']],
    ['git', ['--exec-path=.', 'x']],
    ['git', ['fetch', '--upload-pack=id', 'origin']],
    ['git', ['ls-remote', '--upl=id', 'origin']],
    ['git', ['clone', '-u', 'id', 'u', 'd']],
    ['git', ['push', '--receive-pack=id', 'origin']],
    ['git', ['push', '--exec=id', 'origin']],
    ['git', ['archive', '--exec=id', '--remote=u', 'HEAD']],
    ['git', ['rebase', '-x', 'id', 'HEAD~1']],
    ['git', ['difftool', '--extcmd=id']],
    ['git', ['submodule', 'foreach', 'id']],
    ['git', ['bisect', 'run', 'id']],
    ['git', ['filter-branch', '--tree-filter', 'id']],
    ['find', ['.', '-exec', 'id', ';']],
    ['find', ['.', '-execdir', 'id', ';']],
    ['find', ['.', '-ok', 'id', ';']],
    ['find', ['.', '-delete']],
    ['find', ['.', '-fprint', '/tmp/x']],
    ['sh', ['-c', 'id']],
    ['bash', ['-c', 'id']],
    ['bash', ['-lc', 'id']],
    ['bash', ['--norc', '-c', 'id']],
    ['awk', ['BEGIN{system("id")}']],
    ['gawk', ['BEGIN{while(("id" | getline l)>0) print l}']],
    ['awk', ['-f', 'prog.awk']],
    ['tar', ['-xf', 'a.tar', '--to-command=id']],
    ['tar', ['-cf', 'a.tar', '--checkpoint=1', '--checkpoint-action=exec=id', '.']],
    ['tar', ['-I', 'id', '-xf', 'a.tar']],
    ['tar', ['xIf', 'id', 'a.tar']],
    ['rsync', ['-e', 'id', 'h:a', 'b']],
    ['rsync', ['-ave', 'id', 'h:a', 'b']],
    ['rsync', ['--rsync-path=id', 'h:a', 'b']],
    ['ssh', ['-o', 'ProxyCommand=id', 'h']],
    ['scp', ['-S', 'id', 'h:a', 'b']],
    ['git', ['ls-remote', '--u=id', 'origin']],
    ['git', ['clone', '--conf=core.fsmonitor=id', 'u', 'd']],
    ['git', ['rebase', '--ex=id', 'HEAD~1']],
    ['tar', ['-cf', 'a.tar', '--checkpoint-=exec=id', '.']],
    ['sed', ['1e id', 'notes.md']],
    ['split', ['--filter=id', 'notes.md']],
  ] as const)('%s %j asks, never for the session', async (command, args) => {
    const decision = await decide({ command, args: [...args] });
    expect(decision).toMatchObject({ action: 'ask', sessionApprovable: false });
    expect((decision as { reason: string }).reason).toMatch(/runs another program/);
  });
});
