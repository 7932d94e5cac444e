/**
 * The sandbox as the runtime sees it: a ToolExecutor. Commands (sys/exec) are spawned through
 * the OS backend; JS tools run in a pool of pre-started, confined worker processes; every tool
 * gets the filesystem and network scope it must honour. Built once per runtime.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { Tool, ToolContext, ToolExecutor, ToolOutput } from '../tools/index.js';
import { assertLevel, type BackendInfo, detectBackend } from './backend.js';
import { confinedCommandRunner } from './command.js';
import { commandCheck } from './command-policy.js';
import { confinedEnvironment } from './environment.js';
import { SANDBOX_DENIED, SandboxError } from './errors.js';
import { Launcher } from './launcher.js';
import { needsNetwork, WorkerPool, type WorkerPoolOptions } from './pool.js';
import { programView } from './program-view.js';
import { runsOnHost } from './protocol.js';
import { filesystemScope, networkScope } from './scope.js';
import type { SandboxSettings } from './settings.js';

export interface SandboxOptions {
  settings: SandboxSettings;
  /** Detected when absent. */
  backend?: BackendInfo;
  /** Worker pool tuning; `false` runs JS tools in-process (tests of the command path only). */
  pool?: Partial<Omit<WorkerPoolOptions, 'launcher'>> | false;
  /**
   * `eager` (default) starts the workers now and fails here if they cannot start;
   * `first-use` starts them with the first tool that needs one (a text turn starts none) and
   * keeps them warm after; a start-up failure then fails that call, and the next call retries.
   * `warm` (long-lived processes) starts one worker per lane now without waiting for it, keeps
   * one ready per lane from then on, and runs each call in a worker of its own (pool.ts `warm`);
   * a start-up failure fails the call that needed the worker, as with `first-use`.
   */
  start?: 'eager' | 'first-use' | 'warm';
}

/** A long-lived program (an MCP server) to start confined. */
export interface ServerSpec {
  argv: readonly string[];
  /**
   * The environment it gets (the caller declares it; nothing is inherited), except HOME, a
   * fresh folder, and the variables that would reconfigure it (environment.ts).
   */
  env: Record<string, string>;
  /** Granted network access; else it runs without a network namespace it could reach out of. */
  network: boolean;
}

export interface ConfinedProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Ends the process group and releases what the launch made. */
  stop(): Promise<void>;
}

export interface WorkerCounts {
  /** Workers started so far, replacements included. */
  starts: number;
  /** Process ids of the workers holding no call: ready, or starting for the next one. */
  idle: number[];
  /** Resolves when each of those is ready (or failed to start). */
  ready(): Promise<void>;
}

export interface Sandbox {
  executor: ToolExecutor;
  /**
   * Starts a server confined like a command: the backend's filesystem view, its own process
   * group, the sandbox's resource limits (its wall clock excepted: a server lives on).
   */
  spawnServer(spec: ServerSpec): ConfinedProcess;
  /** The tool workers as they are now (none before the pool starts). */
  workers(): WorkerCounts;
  backend: BackendInfo;
  settings: SandboxSettings;
  close(): Promise<void>;
}

export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const backend = options.backend ?? (await detectBackend());
  assertLevel(options.settings.level, backend);
  const launcher = new Launcher(backend, options.settings);
  const runCommand = confinedCommandRunner(launcher, commandCheck(options.settings.shell));
  const filesystem = filesystemScope(options.settings);
  const network = networkScope(options.settings);
  // Network-category tools (net/fetch) are the grant network mode `deny` keeps for itself: they
  // run in the online lane and reach public addresses only (or the allowlist), pinned and
  // re-checked per redirect. Everything else, commands included, gets no network under `deny`.
  const fetchNetwork =
    network.mode === 'deny' ? { ...network, mode: 'allow-all' as const } : network;
  const poolOptions = options.pool;
  let pool: WorkerPool | undefined;
  /** The pool from its construction on, while it may still be starting (for `workers`). */
  let latest: WorkerPool | undefined;
  let starting: Promise<WorkerPool> | undefined;
  let closed = false;
  const startPool = (settings: Partial<Omit<WorkerPoolOptions, 'launcher'>>) =>
    (starting ??= (async () => {
      // First use without extra modules: each lane starts what its calls need (the built-in
      // tools' names are known without asking a worker).
      const lazy = options.start === 'first-use' && !settings.modules?.length;
      const warm = options.start === 'warm';
      const started = new WorkerPool({ ...settings, launcher, prestart: !lazy, warm });
      latest = started;
      try {
        await started.ready();
      } catch (error) {
        await started.close();
        starting = undefined;
        throw new SandboxError(
          SANDBOX_DENIED,
          `the tool workers could not start in the sandbox: ${(error as Error).message}`,
        );
      }
      pool = started;
      return started;
    })());
  if (poolOptions !== false && options.start === 'warm')
    // Not awaited: opening does not wait for the workers; a start-up failure fails the first
    // call that needs one, and that call starts the pool again.
    startPool(poolOptions ?? {}).catch(() => undefined);
  else if (poolOptions !== false && options.start !== 'first-use')
    await startPool(poolOptions ?? {});

  const executor: ToolExecutor = {
    async run(
      tool: Tool,
      input: Record<string, unknown>,
      context: ToolContext,
    ): Promise<ToolOutput> {
      if (poolOptions !== false && !runsOnHost(tool)) {
        if (closed) return { content: 'the sandbox is closed', isError: true };
        await startPool(poolOptions ?? {});
      }
      const scoped: ToolContext = {
        ...context,
        runCommand,
        filesystem,
        network: needsNetwork(tool) ? fetchNetwork : network,
      };
      if (pool?.handles(tool)) return pool.run(tool, input, scoped);
      // Here only code that confines itself: sys/exec hands its command to runCommand, and
      // manifest-declared tools without an implementation answer that they have none.
      return tool.run(input, scoped);
    },
    prepare(tool: Tool): void {
      if (poolOptions === false || closed || runsOnHost(tool)) return;
      // A pool that cannot start says so when the call runs.
      startPool(poolOptions ?? {}).then(
        (started) => started.prepare(tool),
        () => undefined,
      );
    },
  };
  const spawnServer = (spec: ServerSpec): ConfinedProcess => {
    // What it sees is computed from its command line: its program and installed packages
    // read-only, the folders it was given, nothing around them.
    const view = programView(spec.argv, { home: options.settings.home ?? os.homedir() });
    const launch = launcher.launch({
      argv: view.argv,
      cwd: options.settings.workspace,
      network: spec.network,
      readOnly: view.readOnly,
      granted: view.granted,
      links: view.links,
      limits: options.settings.limits,
      // Servers are often V8 or other runtimes that reserve address space far beyond what they
      // use: no RLIMIT_AS, as for the tool workers; the other limits hold.
      worker: true,
    });
    const child = spawn(launch.file, launch.args, {
      cwd: options.settings.workspace,
      // Its declared environment, with its own fresh HOME and nothing that reconfigures it.
      env: confinedEnvironment(spec.env, launch.home),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('close', () => resolve());
      child.once('error', () => resolve());
    });
    return {
      child,
      stop: async () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
        await exited;
        await launch.cleanup();
      },
    };
  };
  const workers = (): WorkerCounts => ({
    starts: latest?.starts ?? 0,
    idle: latest?.idlePids() ?? [],
    ready: async () => {
      await starting?.catch(() => undefined);
      await latest?.idleReady();
    },
  });
  return {
    executor,
    spawnServer,
    workers,
    backend,
    settings: options.settings,
    close: async () => {
      closed = true;
      await (starting?.catch(() => undefined) ?? Promise.resolve());
      await pool?.close();
    },
  };
}
