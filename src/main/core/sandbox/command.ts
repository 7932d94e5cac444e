/**
 * sys/exec through the sandbox: the shell rules are checked before anything starts, the program
 * runs under the backend with limits and a minimal environment, in its own process group, and
 * the whole tree is killed on timeout (CKP -32014), on cancel or on runaway output.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { commandLineOf } from '../policy/index.js';
import type { CommandRequest, CommandRunner, ToolOutput } from '../tools/index.js';
import type { CommandCheck } from './command-policy.js';
import { confinedEnvironment, minimalEnvironment } from './environment.js';
import { deniedResult, TOOL_TIMEOUT } from './errors.js';
import type { Launcher } from './launcher.js';
import { OutputCapture } from './output.js';

/** Output past this many times the cap is not worth reading: the command is stopped. */
const RUNAWAY_FACTOR = 64;
const NOTICE_ROOM = 200;

export function findProgram(command: string, pathVariable: string): string | undefined {
  if (command.includes('/')) return command;
  for (const dir of pathVariable.split(':').filter(Boolean)) {
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // Next folder.
    }
  }
  return undefined;
}

/** bwrap and shells report a child killed by a signal as exit code 128 + signal. */
function signalOfExit(code: number | null): NodeJS.Signals | undefined {
  if (code === null || code <= 128) return undefined;
  const found = Object.entries(osConstants.signals).find(([, number]) => number === code - 128);
  return found?.[0] as NodeJS.Signals | undefined;
}

function describeSignal(signal: NodeJS.Signals): string {
  if (signal === 'SIGXCPU') return 'killed: CPU time limit reached (SIGXCPU)';
  if (signal === 'SIGXFSZ') return 'killed: file size limit reached (SIGXFSZ)';
  return `killed by ${signal}`;
}

export function confinedCommandRunner(launcher: Launcher, commands: CommandCheck): CommandRunner {
  const { settings } = launcher;
  return (request: CommandRequest, signal: AbortSignal): Promise<ToolOutput> => {
    const line = request.shell ? request.command : commandLineOf(request.command, request.args);
    const refusal = commands.check(line);
    if (refusal) return Promise.resolve(deniedResult('sys/exec', refusal));
    const env = minimalEnvironment({
      home: settings.workspace,
      offered: request.env,
      granted: settings.passEnv,
      source: process.env,
      path: process.env.PATH,
    });
    const argv = request.shell
      ? ['/bin/sh', '-c', request.command]
      : [request.command, ...request.args];
    if (!findProgram(argv[0] as string, env.PATH ?? '')) {
      return Promise.resolve({ content: `command not found: ${request.command}`, isError: true });
    }
    const timeoutMs = Math.min(request.timeoutMs, settings.limits.timeoutMs);
    const budget = Math.max(
      1024,
      Math.min(request.maxOutputBytes, settings.limits.maxOutputBytes) - NOTICE_ROOM,
    );
    const launch = launcher.launch({
      argv,
      cwd: request.cwd,
      // Commands cannot be filtered by host without a proxy: only allow-all opens the network.
      network: settings.network.mode === 'allow-all',
      limits: settings.limits,
    });
    return new Promise((resolve) => {
      const child = spawn(launch.file, launch.args, {
        cwd: request.cwd,
        env: confinedEnvironment(env, launch.home),
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const capture = new OutputCapture(budget);
      let stopped: string | undefined;
      const killTree = (why: string) => {
        stopped ??= why;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const take = (chunk: Buffer) => {
        capture.push(chunk);
        if (capture.bytesSeen > budget * RUNAWAY_FACTOR)
          killTree(`output passed ${capture.bytesSeen} bytes`);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      // A read error on a pipe ends that stream; 'close' on the child still reports the run.
      child.stdout.on('error', () => killTree('its output could not be read'));
      child.stderr.on('error', () => killTree('its output could not be read'));
      const timer = setTimeout(
        () => killTree(`timed out after ${timeoutMs} ms (CKP ${TOOL_TIMEOUT})`),
        timeoutMs,
      );
      const onAbort = () => killTree('cancelled');
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      const finish = (output: ToolOutput) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(output);
        // The cgroup goes once the kernel has reaped the tree; the caller need not wait.
        void launch.cleanup();
      };
      child.on('error', (error) => finish({ content: error.message, isError: true }));
      child.on('close', (code, exitSignal) => {
        const output = capture.text();
        const killedBy = exitSignal ?? signalOfExit(code);
        const status = stopped
          ? `killed: ${stopped}`
          : killedBy
            ? `${describeSignal(killedBy)}, exit code ${code ?? 'none'}`
            : `exit code ${code}`;
        finish({
          content: `${output}${output.endsWith('\n') || !output ? '' : '\n'}[${status}]`,
          isError: stopped !== undefined || code !== 0,
        });
      });
    });
  };
}
