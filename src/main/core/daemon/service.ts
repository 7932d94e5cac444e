/**
 * `pincer daemon install`: the per-user service that runs the daemon at login, as data. Pure:
 * from where node and the CLI are, the daemon's flags and the user's folders, it says which file
 * to write (its text and encoding) and which commands start, restart and stop it. A systemd user
 * unit on Linux, a launchd agent on macOS, a scheduled task (logon trigger) on Windows.
 *
 * Each format quotes differently; one escaping function per format, each refusing what the
 * format cannot carry (control characters), so a path with spaces or quotes arrives intact.
 */
import path from 'node:path';
import { PincerError } from '../errors.js';

export type ServicePlatform = 'linux' | 'darwin' | 'win32';

/** The first thing in every file Pincer writes: what tells ours from someone else's. */
export const SERVICE_MARKER =
  'Written by `pincer daemon install`; `pincer daemon uninstall` removes it.';

export const SYSTEMD_UNIT = 'pincer.service';
export const LAUNCHD_LABEL = 'dev.pincer.daemon';
export const WINDOWS_TASK = 'Pincer daemon';

/** Seconds the service manager waits after SIGTERM, beyond the daemon's drain, before killing. */
export const STOP_MARGIN_SECONDS = 15;

export class ServiceError extends PincerError {
  constructor(
    readonly code: 'foreign_file' | 'unrepresentable' | 'not_built' | 'unsupported_platform',
    message: string,
  ) {
    super(
      code === 'foreign_file'
        ? 'conflict'
        : code === 'unsupported_platform'
          ? 'unsupported'
          : 'invalid_request',
      message,
    );
    this.name = 'ServiceError';
  }
}

export interface ServiceCommand {
  program: string;
  args: string[];
  /** A failure is expected and harmless (stopping what is not running). */
  mayFail?: boolean;
}

export interface ServiceRequest {
  platform: ServicePlatform;
  /** The user's home folder. */
  home: string;
  /** Honoured on Linux for the unit's folder. */
  xdgConfigHome?: string;
  /** The user id launchd's gui domain is named by (macOS). */
  uid?: number;
  /** The account the logon trigger waits for (Windows, `DOMAIN\user`); any user when absent. */
  windowsUser?: string;
  /** The node executable. */
  node: string;
  /** The CLI's built entry (dist/cli.js). */
  entry: string;
  /** What follows `daemon` on the command line (the data dir and model flags). */
  daemonArgs: string[];
  dataDir: string;
  drainSeconds: number;
}

export interface ServicePlan {
  platform: ServicePlatform;
  /** How the service manager names it. */
  name: string;
  file: string;
  content: string;
  encoding: 'utf8' | 'utf16le';
  /** The whole command the service runs. */
  argv: string[];
  /**
   * Where a registration already there is read: the file itself, or (Windows) a command whose
   * output is the registered task (it fails when there is none).
   */
  existing: { kind: 'file' } | { kind: 'command'; command: ServiceCommand };
  /** After writing a new service. */
  start: ServiceCommand[];
  /** After rewriting one of ours with other content. */
  restart: ServiceCommand[];
  /** Before removing the file. */
  stop: ServiceCommand[];
  /** After removing it. */
  afterRemove: ServiceCommand[];
}

/** Control characters no format here can carry in a path or an argument. */
function refuseControl(value: string, what: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new ServiceError(
      'unrepresentable',
      `${what} holds a control character (a newline?): ${JSON.stringify(value)}`,
    );
  }
}

/**
 * One word of a systemd `ExecStart=` line: double-quoted, C escapes for `\` and `"`, `%%` for a
 * literal `%` (specifiers) and `$$` for a literal `$` (variable expansion).
 */
export function systemdExecWord(value: string): string {
  refuseControl(value, 'a service argument');
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/%/g, '%%')
    .replace(/\$/g, '$$$$');
  return `"${escaped}"`;
}

/** One `Environment=` assignment: quoted like a word, `%%` for `%`; no `$` expansion there. */
export function systemdEnvironment(name: string, value: string): string {
  refuseControl(value, `${name}`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new ServiceError('unrepresentable', `not a variable name: ${name}`);
  }
  const escaped = `${name}=${value}`
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/%/g, '%%');
  return `"${escaped}"`;
}

/** A free-text value (Description=): taken as written up to the line's end, `%%` for `%`. */
export function systemdText(value: string): string {
  refuseControl(value, 'a unit text');
  return value.replace(/%/g, '%%');
}

/** Text or an attribute value in XML 1.0 (plist, task XML). */
export function xmlEscape(value: string): string {
  refuseControl(value, 'an XML value');
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * One argument of a Windows command line as CommandLineToArgvW (and the C runtime) split it:
 * quoted when it holds a space, a tab or a quote (or is empty); a quote becomes `\"`, and the
 * backslashes before a quote, or before the closing quote, are doubled.
 */
export function windowsArg(value: string): string {
  refuseControl(value, 'a command-line argument');
  if (value !== '' && !/[ \t"]/.test(value)) return value;
  let out = '"';
  let backslashes = 0;
  for (const char of value) {
    if (char === '\\') {
      backslashes += 1;
      continue;
    }
    if (char === '"') {
      out += `${'\\'.repeat(backslashes * 2 + 1)}"`;
    } else {
      out += `${'\\'.repeat(backslashes)}${char}`;
    }
    backslashes = 0;
  }
  return `${out}${'\\'.repeat(backslashes * 2)}"`;
}

export function planService(request: ServiceRequest): ServicePlan {
  const argv = [request.node, request.entry, 'daemon', ...request.daemonArgs];
  for (const arg of argv) refuseControl(arg, 'a service argument');
  const stopSeconds = Math.max(1, Math.ceil(request.drainSeconds)) + STOP_MARGIN_SECONDS;
  switch (request.platform) {
    case 'linux':
      return systemdPlan(request, argv, stopSeconds);
    case 'darwin':
      return launchdPlan(request, argv, stopSeconds);
    case 'win32':
      return windowsPlan(request, argv);
  }
}

function systemdPlan(request: ServiceRequest, argv: string[], stopSeconds: number): ServicePlan {
  const configHome = request.xdgConfigHome?.trim() || path.posix.join(request.home, '.config');
  const file = path.posix.join(configHome, 'systemd', 'user', SYSTEMD_UNIT);
  const content = [
    `# ${SERVICE_MARKER}`,
    '[Unit]',
    `Description=${systemdText(`Pincer background assistant (data dir ${request.dataDir})`)}`,
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${argv.map(systemdExecWord).join(' ')}`,
    `Environment=${systemdEnvironment('PINCER_HOME', request.dataDir)}`,
    'Restart=on-failure',
    'RestartSec=5',
    // The daemon drains on SIGTERM; systemd waits past the drain before it kills.
    'KillSignal=SIGTERM',
    'KillMode=mixed',
    `TimeoutStopSec=${stopSeconds}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
  const systemctl = (...args: string[]): ServiceCommand => ({
    program: 'systemctl',
    args: ['--user', ...args],
  });
  return {
    platform: 'linux',
    name: SYSTEMD_UNIT,
    file,
    content,
    encoding: 'utf8',
    argv,
    existing: { kind: 'file' },
    start: [systemctl('daemon-reload'), systemctl('enable', '--now', SYSTEMD_UNIT)],
    restart: [
      systemctl('daemon-reload'),
      systemctl('enable', SYSTEMD_UNIT),
      systemctl('restart', SYSTEMD_UNIT),
    ],
    stop: [systemctl('disable', '--now', SYSTEMD_UNIT)],
    afterRemove: [systemctl('daemon-reload')],
  };
}

function launchdPlan(request: ServiceRequest, argv: string[], stopSeconds: number): ServicePlan {
  const file = path.posix.join(request.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const logs = path.posix.join(request.dataDir, 'logs');
  const string = (value: string) => `<string>${xmlEscape(value)}</string>`;
  const content = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- ${SERVICE_MARKER} -->`,
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  ${string(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...argv.map((arg) => `    ${string(arg)}`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    '    <key>PINCER_HOME</key>',
    `    ${string(request.dataDir)}`,
    '  </dict>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    // Started again after a crash, not after a clean stop.
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    // launchd sends SIGTERM, then SIGKILL after this many seconds: past the daemon's drain.
    '  <key>ExitTimeOut</key>',
    `  <integer>${stopSeconds}</integer>`,
    '  <key>ProcessType</key>',
    '  <string>Background</string>',
    '  <key>StandardOutPath</key>',
    `  ${string(path.posix.join(logs, 'daemon.stdout.log'))}`,
    '  <key>StandardErrorPath</key>',
    `  ${string(path.posix.join(logs, 'daemon.stderr.log'))}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
  const domain = `gui/${request.uid ?? 0}`;
  const launchctl = (...args: string[]): ServiceCommand => ({ program: 'launchctl', args });
  const bootout: ServiceCommand = {
    ...launchctl('bootout', `${domain}/${LAUNCHD_LABEL}`),
    mayFail: true,
  };
  return {
    platform: 'darwin',
    name: LAUNCHD_LABEL,
    file,
    content,
    encoding: 'utf8',
    argv,
    existing: { kind: 'file' },
    start: [bootout, launchctl('bootstrap', domain, file)],
    restart: [bootout, launchctl('bootstrap', domain, file)],
    stop: [bootout],
    afterRemove: [],
  };
}

function windowsPlan(request: ServiceRequest, argv: string[]): ServicePlan {
  const file = path.win32.join(request.dataDir, 'daemon', 'pincer-task.xml');
  const [program = '', ...args] = argv;
  const trigger = request.windowsUser
    ? `      <UserId>${xmlEscape(request.windowsUser)}</UserId>`
    : undefined;
  const content = [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    `    <Description>${xmlEscape(SERVICE_MARKER)}</Description>`,
    `    <URI>${xmlEscape(`\\${WINDOWS_TASK}`)}</URI>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    '    <LogonTrigger>',
    '      <Enabled>true</Enabled>',
    ...(trigger ? [trigger] : []),
    '    </LogonTrigger>',
    '  </Triggers>',
    '  <Principals>',
    '    <Principal id="Author">',
    '      <LogonType>InteractiveToken</LogonType>',
    '      <RunLevel>LeastPrivilege</RunLevel>',
    '    </Principal>',
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <RestartOnFailure>',
    '      <Interval>PT1M</Interval>',
    '      <Count>3</Count>',
    '    </RestartOnFailure>',
    '    <Enabled>true</Enabled>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${xmlEscape(windowsArg(program))}</Command>`,
    `      <Arguments>${xmlEscape(args.map(windowsArg).join(' '))}</Arguments>`,
    `      <WorkingDirectory>${xmlEscape(request.dataDir)}</WorkingDirectory>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\r\n');
  const schtasks = (...rest: string[]): ServiceCommand => ({ program: 'schtasks', args: rest });
  const end: ServiceCommand = { ...schtasks('/End', '/TN', WINDOWS_TASK), mayFail: true };
  const create = schtasks('/Create', '/TN', WINDOWS_TASK, '/XML', file, '/F');
  const run = schtasks('/Run', '/TN', WINDOWS_TASK);
  return {
    platform: 'win32',
    name: WINDOWS_TASK,
    file,
    content,
    encoding: 'utf16le',
    argv,
    existing: { kind: 'command', command: schtasks('/Query', '/TN', WINDOWS_TASK, '/XML') },
    start: [create, run],
    restart: [end, create, run],
    stop: [end, schtasks('/Delete', '/TN', WINDOWS_TASK, '/F')],
    afterRemove: [],
  };
}
