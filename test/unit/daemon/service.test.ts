/**
 * The per-user service, as generated: each format's escaping, the systemd unit, the launchd
 * plist (read back with the `plist` package's real parser) and the Windows task XML (read back
 * with a real XML parser, its command line split by the rules Windows splits it by), and the
 * install/uninstall flows over a runner that records what launchctl and schtasks would be asked
 * (neither exists on this machine; the Linux flow runs a real program in the CLI test).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  installService,
  planService,
  ServiceError,
  uninstallService,
} from '../../../src/main/core/daemon/index.js';
import {
  LAUNCHD_LABEL,
  SERVICE_MARKER,
  type ServiceCommand,
  type ServiceRequest,
  systemdEnvironment,
  systemdExecWord,
  systemdText,
  WINDOWS_TASK,
  windowsArg,
  xmlEscape,
} from '../../../src/main/core/daemon/service.js';
import type { CommandRunner } from '../../../src/main/core/daemon/service-install.js';

const require = createRequire(import.meta.url);
const plist = require('plist') as { parse(text: string): unknown };

interface XmlNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: { length: number; [index: number]: XmlNode };
  namespaceURI?: string | null;
}
const { DOMParser } = require('@xmldom/xmldom') as {
  DOMParser: new (options: {
    errorHandler: Record<'warning' | 'error' | 'fatalError', (message: string) => void>;
  }) => { parseFromString(text: string, type: string): { documentElement: XmlNode } };
};

function parseXml(text: string): XmlNode {
  const fail = (message: string) => {
    throw new Error(`XML: ${message}`);
  };
  return new DOMParser({
    errorHandler: { warning: () => undefined, error: fail, fatalError: fail },
  }).parseFromString(text, 'text/xml').documentElement;
}

function children(node: XmlNode): XmlNode[] {
  const out: XmlNode[] = [];
  for (let i = 0; i < node.childNodes.length; i++) {
    const child = node.childNodes[i];
    if (child && child.nodeType === 1) out.push(child);
  }
  return out;
}

function at(node: XmlNode, ...names: string[]): XmlNode {
  let current = node;
  for (const name of names) {
    const next = children(current).find((child) => child.nodeName === name);
    if (!next) throw new Error(`no <${name}> under <${current.nodeName}>`);
    current = next;
  }
  return current;
}

/**
 * How CommandLineToArgvW splits a command line (the documented rules, written independently of
 * the encoder): 2n backslashes + quote are n backslashes and a quote toggle, 2n+1 backslashes +
 * quote are n backslashes and a literal quote, other backslashes are literal.
 */
function windowsSplit(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inQuotes = false;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '\\') {
      let count = 0;
      while (line[i] === '\\') {
        count++;
        i++;
      }
      if (line[i] === '"') {
        current += '\\'.repeat(Math.floor(count / 2));
        if (count % 2 === 1) current += '"';
        else inQuotes = !inQuotes;
      } else {
        current += '\\'.repeat(count);
        i--;
      }
      started = true;
    } else if (char === '"') {
      if (inQuotes && line[i + 1] === '"') {
        current += '"';
        i++;
      } else inQuotes = !inQuotes;
      started = true;
    } else if ((char === ' ' || char === '\t') && !inQuotes) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

const TRICKY = `/tmp/it's a "dir" with $HOME, 100% & <tags>\\back`;

function request(overrides: Partial<ServiceRequest> = {}): ServiceRequest {
  return {
    platform: 'linux',
    home: '/home/ann',
    node: '/usr/bin/node',
    entry: '/opt/pincer/dist/cli.js',
    daemonArgs: ['--data-dir', '/home/ann/.config/Pincer', '--drain', '40'],
    dataDir: '/home/ann/.config/Pincer',
    drainSeconds: 40,
    ...overrides,
  };
}

describe('escaping per format', () => {
  it('quotes a systemd ExecStart word: C escapes, %% for specifiers, $$ for variables', () => {
    expect(systemdExecWord('/usr/bin/node')).toBe('"/usr/bin/node"');
    expect(systemdExecWord('a b')).toBe('"a b"');
    expect(systemdExecWord('say "hi"')).toBe('"say \\"hi\\""');
    expect(systemdExecWord('C:\\x')).toBe('"C:\\\\x"');
    expect(systemdExecWord('100%')).toBe('"100%%"');
    expect(systemdExecWord('$HOME')).toBe('"$$HOME"');
    expect(systemdExecWord(`it's`)).toBe(`"it's"`);
    expect(systemdExecWord('')).toBe('""');
    expect(systemdEnvironment('PINCER_HOME', '/a "b" 5% $x')).toBe(
      '"PINCER_HOME=/a \\"b\\" 5%% $x"',
    );
    expect(systemdText('50% off')).toBe('50%% off');
  });

  it('escapes XML text and attribute values', () => {
    expect(xmlEscape(`a & b < c > d "e" 'f'`)).toBe(
      'a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;',
    );
  });

  it('quotes a Windows argument so CommandLineToArgvW gives it back', () => {
    expect(windowsArg('plain')).toBe('plain');
    expect(windowsArg('C:\\Program Files\\nodejs\\node.exe')).toBe(
      '"C:\\Program Files\\nodejs\\node.exe"',
    );
    expect(windowsArg('C:\\a b\\')).toBe('"C:\\a b\\\\"');
    expect(windowsArg('say "hi"')).toBe('"say \\"hi\\""');
    expect(windowsArg('')).toBe('""');
    const samples = [
      'a',
      'a b',
      'a\\b',
      'a\\\\b c',
      'end\\',
      'end \\\\',
      '"',
      '\\"',
      'x\\"y z',
      '',
      '  ',
      TRICKY,
    ];
    for (const sample of samples) {
      expect(windowsSplit(windowsArg(sample))).toEqual([sample]);
    }
    expect(windowsSplit(samples.map(windowsArg).join(' '))).toEqual(samples);
  });

  it('refuses what no format can carry: a newline or another control character', () => {
    for (const bad of ['a\nb', 'a\rb', 'nul\u0000']) {
      expect(() => systemdExecWord(bad)).toThrow(ServiceError);
      expect(() => xmlEscape(bad)).toThrow(ServiceError);
      expect(() => windowsArg(bad)).toThrow(ServiceError);
    }
    expect(() => planService(request({ daemonArgs: ['--manifest', '/a\nb'] }))).toThrow(
      /control character/,
    );
  });
});

describe('systemd user unit', () => {
  it('runs node with the built CLI and the flags, restarts on failure, stops past the drain', () => {
    const plan = planService(request());
    expect(plan.file).toBe('/home/ann/.config/systemd/user/pincer.service');
    const lines = plan.content.split('\n');
    expect(lines[0]).toBe(`# ${SERVICE_MARKER}`);
    expect(lines).toContain(
      'ExecStart="/usr/bin/node" "/opt/pincer/dist/cli.js" "daemon" "--data-dir" "/home/ann/.config/Pincer" "--drain" "40"',
    );
    expect(lines).toContain('Environment="PINCER_HOME=/home/ann/.config/Pincer"');
    expect(lines).toContain('Restart=on-failure');
    expect(lines).toContain('KillSignal=SIGTERM');
    expect(lines).toContain('TimeoutStopSec=55');
    expect(lines).toContain('WantedBy=default.target');
    expect(plan.start.map((c) => c.args.join(' '))).toEqual([
      '--user daemon-reload',
      '--user enable --now pincer.service',
    ]);
    expect(plan.stop.map((c) => c.args.join(' '))).toEqual(['--user disable --now pincer.service']);
  });

  it('honours XDG_CONFIG_HOME', () => {
    expect(planService(request({ xdgConfigHome: '/x/cfg' })).file).toBe(
      '/x/cfg/systemd/user/pincer.service',
    );
    expect(planService(request({ xdgConfigHome: '  ' })).file).toBe(
      '/home/ann/.config/systemd/user/pincer.service',
    );
  });
});

describe('launchd agent', () => {
  it('is a plist a real parser reads back: label, argv intact, RunAtLoad, KeepAlive on crash, logs', () => {
    const dataDir = `/Users/ann/Library/Application Support/Pincer ${TRICKY}`;
    const plan = planService(
      request({
        platform: 'darwin',
        home: '/Users/ann',
        uid: 501,
        dataDir,
        daemonArgs: ['--data-dir', dataDir, '--manifest', TRICKY],
      }),
    );
    expect(plan.file).toBe(`/Users/ann/Library/LaunchAgents/${LAUNCHD_LABEL}.plist`);
    expect(plan.content).toContain(`<!-- ${SERVICE_MARKER} -->`);
    const parsed = plist.parse(plan.content) as Record<string, unknown>;
    expect(parsed).toEqual({
      Label: LAUNCHD_LABEL,
      ProgramArguments: [
        '/usr/bin/node',
        '/opt/pincer/dist/cli.js',
        'daemon',
        '--data-dir',
        dataDir,
        '--manifest',
        TRICKY,
      ],
      EnvironmentVariables: { PINCER_HOME: dataDir },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ExitTimeOut: 55,
      ProcessType: 'Background',
      StandardOutPath: `${dataDir}/logs/daemon.stdout.log`,
      StandardErrorPath: `${dataDir}/logs/daemon.stderr.log`,
    });
    expect(plan.start.map((c) => [c.program, ...c.args].join(' '))).toEqual([
      `launchctl bootout gui/501/${LAUNCHD_LABEL}`,
      `launchctl bootstrap gui/501 ${plan.file}`,
    ]);
  });
});

describe('Windows scheduled task', () => {
  it('is task XML with a logon trigger whose command line splits back into the argv', () => {
    const dataDir = 'C:\\Users\\Ann O"Neil\\AppData\\Roaming\\Pincer';
    const argv = [
      'C:\\Program Files\\nodejs\\node.exe',
      'C:\\Users\\Ann O"Neil\\pincer\\dist\\cli.js',
      'daemon',
      '--data-dir',
      dataDir,
      '--manifest',
      'C:\\a & b\\<claw>.yaml',
      '--endpoint',
      'http://127.0.0.1:8080/v1?x=1&y=2',
    ];
    const [node = '', entry = '', , ...daemonArgs] = argv;
    const plan = planService(
      request({ platform: 'win32', node, entry, daemonArgs, dataDir, windowsUser: 'PC\\ann' }),
    );
    expect(plan.file).toBe(`${dataDir}\\daemon\\pincer-task.xml`);
    expect(plan.encoding).toBe('utf16le');
    const task = parseXml(plan.content);
    expect(task.nodeName).toBe('Task');
    expect(task.namespaceURI).toBe('http://schemas.microsoft.com/windows/2004/02/mit/task');
    expect(at(task, 'RegistrationInfo', 'Description').textContent).toBe(SERVICE_MARKER);
    expect(at(task, 'Triggers', 'LogonTrigger', 'UserId').textContent).toBe('PC\\ann');
    expect(at(task, 'Settings', 'RestartOnFailure', 'Count').textContent).toBe('3');
    expect(at(task, 'Settings', 'ExecutionTimeLimit').textContent).toBe('PT0S');
    const exec = at(task, 'Actions', 'Exec');
    const line = `${at(exec, 'Command').textContent} ${at(exec, 'Arguments').textContent}`;
    expect(windowsSplit(line)).toEqual(argv);
    expect(at(exec, 'WorkingDirectory').textContent).toBe(dataDir);
    expect(plan.start.map((c) => [c.program, ...c.args])).toEqual([
      ['schtasks', '/Create', '/TN', WINDOWS_TASK, '/XML', plan.file, '/F'],
      ['schtasks', '/Run', '/TN', WINDOWS_TASK],
    ]);
  });
});

describe('install and uninstall flows', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function recorder(answers: (command: ServiceCommand) => number | undefined = () => 0) {
    const calls: string[] = [];
    const run: CommandRunner = (command) => {
      calls.push([command.program, ...command.args].join(' '));
      const code = answers(command);
      return code === undefined ? undefined : { code, stdout: '', stderr: code ? 'boom' : '' };
    };
    return { calls, run };
  }

  it('launchd: bootstraps in the gui domain, is idempotent, refuses a foreign plist', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-launchd-'));
    const plan = planService(request({ platform: 'darwin', home: dir, uid: 501 }));
    // bootout fails when nothing is loaded: that is fine.
    const first = recorder((command) => (command.args[0] === 'bootout' ? 113 : 0));
    const installed = installService(plan, { run: first.run });
    expect(installed).toMatchObject({ outcome: 'installed', ok: true });
    expect(first.calls).toEqual([
      `launchctl bootout gui/501/${LAUNCHD_LABEL}`,
      `launchctl bootstrap gui/501 ${plan.file}`,
    ]);
    expect(await readFile(plan.file, 'utf8')).toBe(plan.content);

    const again = recorder();
    expect(installService(plan, { run: again.run }).outcome).toBe('unchanged');
    expect(again.calls).toEqual([]);

    const removed = recorder();
    expect(uninstallService(plan, { run: removed.run }).outcome).toBe('removed');
    expect(removed.calls).toEqual([`launchctl bootout gui/501/${LAUNCHD_LABEL}`]);
    expect(uninstallService(plan, { run: removed.run }).outcome).toBe('not-installed');

    await writeFile(plan.file, '<plist><dict/></plist>\n');
    expect(() => installService(plan, { run: recorder().run })).toThrow(/not written by Pincer/);
    expect(() => uninstallService(plan, { run: recorder().run })).toThrow(/not written by Pincer/);
    expect(await readFile(plan.file, 'utf8')).toBe('<plist><dict/></plist>\n');
  });

  it('a failing service manager command is reported with what is left to run', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-launchd-'));
    const plan = planService(request({ platform: 'darwin', home: dir, uid: 501 }));
    const failing = recorder((command) => (command.args[0] === 'bootstrap' ? 5 : 0));
    const report = installService(plan, { run: failing.run });
    expect(report.ok).toBe(false);
    expect(report.lines.join('\n')).toMatch(/failed \(exit 5\): launchctl bootstrap .*: boom/);
  });

  it('Windows: a task registered by someone else is left alone; ours is replaced', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-schtasks-'));
    const plan = planService(request({ platform: 'win32', dataDir: dir }));
    let registered: string | undefined = '<Task><RegistrationInfo/></Task>';
    const run: CommandRunner = (command) => {
      if (command.args[0] === '/Query') {
        return registered === undefined
          ? { code: 1, stdout: '', stderr: 'ERROR: The system cannot find the file specified.' }
          : { code: 0, stdout: registered, stderr: '' };
      }
      return { code: 0, stdout: '', stderr: '' };
    };
    expect(() => installService(plan, { run })).toThrow(/task "Pincer daemon" exists/);
    registered = undefined;
    expect(installService(plan, { run }).outcome).toBe('installed');
    // The file carries a byte order mark and UTF-16 as its declaration says.
    const bytes = await readFile(plan.file);
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xfe]);
    expect(bytes.subarray(2).toString('utf16le')).toBe(plan.content);
    registered = plan.content;
    expect(installService(plan, { run }).outcome).toBe('unchanged');
    expect(uninstallService(plan, { run }).outcome).toBe('removed');
  });

  it('prints the commands instead when the service manager is not installed', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-systemd-'));
    const plan = planService(request({ home: dir }));
    const report = installService(plan, { run: () => undefined });
    expect(report.outcome).toBe('manual');
    expect(report.lines).toContain('  systemctl --user enable --now pincer.service');
  });
});
