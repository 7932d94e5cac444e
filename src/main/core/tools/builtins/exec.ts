/**
 * sys/exec: a program with an argument list, no shell unless asked, in the workspace. The child
 * leads its own process group so a timeout or a cancel kills everything it started. The
 * environment holds only PATH, HOME and what the policy grants: never Pincer's secrets.
 * Under the sandbox the context's runCommand spawns it confined (bwrap, limits); without
 * one it runs as a plain child process.
 */
import { spawn } from 'node:child_process';
import { confine } from '../../workspace-fs/index.js';
import { type Tool, ToolError } from '../types.js';

const CAPTURE_LIMIT = 4 * 1024 * 1024;
const EXEC_TIMEOUT_MS = 120_000;

export const sysExec: Tool = {
  name: 'sys/exec',
  description:
    'Run a program in the workspace: command plus an args array (no shell). Set shell to run command as a shell line.',
  inputSchema: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1 },
      args: { type: 'array', items: { type: 'string' } },
      cwd: { type: 'string', description: 'Folder relative to the workspace' },
      shell: { type: 'boolean' },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 600000 },
    },
    required: ['command'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  category: 'shell',
  tier: 'guarded',
  // Parses its arguments and hands the command to the backend: the command is what runs confined.
  runsOn: 'host',
  // "Approve for session" covers the exact call shown: program, every argument, folder.
  sessionScope: { args: ['command', 'args', 'shell'], folder: 'cwd' },
  timeoutMs: EXEC_TIMEOUT_MS,
  maxOutputBytes: 256 * 1024,
  source: 'builtin',
  async run(input, context) {
    const cwd = await confine(context.workspace, input.cwd ?? '.', 'cwd', {
      scope: context.filesystem,
    });
    const args = (input.args as string[] | undefined) ?? [];
    const shell = input.shell === true;
    if (shell && args.length)
      throw new ToolError('with shell, put the whole line in command and leave args empty');
    const timeoutMs = Math.min(
      (input.timeout_ms as number | undefined) ?? EXEC_TIMEOUT_MS,
      EXEC_TIMEOUT_MS,
    );
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: context.workspace,
      ...context.env,
    };
    if (context.runCommand) {
      return context.runCommand(
        {
          command: input.command as string,
          args,
          shell,
          cwd,
          timeoutMs,
          env: { ...context.env },
          maxOutputBytes: sysExec.maxOutputBytes,
        },
        context.signal,
      );
    }
    return new Promise((resolve, reject) => {
      const child = spawn(input.command as string, args, {
        cwd,
        env,
        shell,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const chunks: Buffer[] = [];
      let size = 0;
      const take = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= CAPTURE_LIMIT) chunks.push(chunk);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      let stopped: string | undefined;
      const killGroup = (why: string) => {
        stopped ??= why;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      };
      child.stdout.on('error', () => killGroup('its output could not be read'));
      child.stderr.on('error', () => killGroup('its output could not be read'));
      const timer = setTimeout(() => killGroup(`timed out after ${timeoutMs} ms`), timeoutMs);
      const onAbort = () => killGroup('cancelled');
      context.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        context.signal.removeEventListener('abort', onAbort);
        reject(
          new ToolError(
            error.code === 'ENOENT' ? `command not found: ${String(input.command)}` : error.message,
          ),
        );
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        context.signal.removeEventListener('abort', onAbort);
        const output = Buffer.concat(chunks).toString('utf8');
        const status = stopped
          ? `killed: ${stopped}`
          : signal
            ? `killed by ${signal}`
            : `exit code ${code}`;
        resolve({
          content: `${output}${output.endsWith('\n') || !output ? '' : '\n'}[${status}]`,
          isError: stopped !== undefined || code !== 0,
        });
      });
    });
  },
};
