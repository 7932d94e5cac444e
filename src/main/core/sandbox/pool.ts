/**
 * Pre-started tool workers, so a JS tool call costs a round trip on a pipe, not a process start.
 * Two lanes: offline workers (no network namespace access) for everything, and online workers
 * for network-category tools. A worker either serves call after call (the one-shot CLI, started
 * on first use) or, in a warm pool (long-lived processes), one call only, with the lane's next
 * worker started before the next call comes. A worker runs one call at a time; a call past its
 * deadline or cancelled gets a short grace, then its worker is killed (whole tree) and
 * replaced, and so is a worker that crashes or breaks the channel protocol. The call gets an
 * error result either way; the run goes on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isCkpErrorCode } from '../ckp/index.js';
import type { Tool, ToolContext, ToolOutput } from '../tools/index.js';
import { BUILTIN_TOOLS } from '../tools/index.js';
import { CHANNEL_FD, encodeLine, LineSplitter, MAX_LINE_BYTES } from './channel.js';
import { confinedEnvironment, minimalEnvironment } from './environment.js';
import { TOOL_TIMEOUT } from './errors.js';
import { parseFromWorker } from './from-worker.js';
import type { Launch, Launcher } from './launcher.js';
import { runsOnHost, type ToWorker, type WireContext } from './protocol.js';
import { installationView } from './system-view.js';

export interface WorkerEntry {
  /** The worker script. */
  file: string;
  /** Node flags it needs (the tsx loader when it is TypeScript source). */
  execArgv: string[];
  /** Environment the runtime needs on top of the minimal one (Electron's Node mode). */
  env?: Record<string, string>;
}

export interface WorkerPoolOptions {
  launcher: Launcher;
  /** Offline workers kept running (default 2). */
  size?: number;
  /** Online workers for network-category tools (default 1; 0 starts one on first use). */
  onlineSize?: number;
  /**
   * Start the workers now (default). `false`: each lane starts a worker when a call finds none
   * idle, up to its size, so a process that runs one file tool starts one worker.
   */
  prestart?: boolean;
  /**
   * Long-lived processes: each lane keeps one started worker ready before any call needs it,
   * and a worker runs one call only: when its call ends it is killed (whole tree) and the
   * lane's next one starts, so no call sees what an earlier one left in a worker's memory, temp
   * folder or child processes. Calls at once in a lane start more, up to `size`/`onlineSize`;
   * `prestart` does not apply (one per lane is started at once).
   */
  warm?: boolean;
  /** Absolute paths of extra ES modules whose exported tools run in the workers. */
  modules?: readonly string[];
  entry?: WorkerEntry;
  /** A worker that is not ready by then is a start-up failure (default 20 s). */
  startTimeoutMs?: number;
  /** After a cancel, how long a worker may take to answer before it is killed (default 250 ms). */
  cancelGraceMs?: number;
}

/**
 * Where the worker script is: next to the code that starts it (dist/sandbox-worker.js beside the
 * CLI bundle, out/main/sandbox-worker.js beside the desktop app's), else the TypeScript source
 * run through tsx (tests, `tsx src/main/cli.ts`). Inside the desktop app the Node that runs
 * workers is the app's own binary in Node mode: Electron ships no other.
 */
export function defaultWorkerEntry(
  dir = path.dirname(fileURLToPath(import.meta.url)),
  versions: { electron?: string } = process.versions,
): WorkerEntry {
  const env = versions.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {};
  const bundled = path.join(dir, 'sandbox-worker.js');
  if (existsSync(bundled)) return { file: bundled, execArgv: [], ...env };
  const compiled = path.join(dir, 'worker.js');
  if (existsSync(compiled)) return { file: compiled, execArgv: [], ...env };
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { file: path.join(dir, 'worker.ts'), execArgv: ['--import', loader], ...env };
}

/** Network-category tools get the online lane; everything else runs without a network. */
export function needsNetwork(tool: Tool): boolean {
  return tool.category === 'network';
}

const MAX_FAILED_STARTS = 3;

interface Pending {
  resolve(output: ToolOutput): void;
}

class Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<string[]>;
  busy = false;
  /** Has been handed a call (a warm pool's worker runs one, then goes). */
  used = false;
  dead = false;
  started = false;
  /** Broke the channel protocol: killed, never handed out again; replaced once it exits. */
  retired = false;
  /** Settles when what the launch made (a pids cgroup) is released after the worker is gone. */
  cleaned: Promise<void> = Promise.resolve();
  private readonly launch: Launch;
  private readonly channel: Socket;
  private readonly lines = new LineSplitter(MAX_LINE_BYTES);
  private readonly pending = new Map<number, Pending>();
  private stderr = '';
  private onReady: (tools: string[]) => void = () => undefined;

  constructor(
    launcher: Launcher,
    entry: WorkerEntry,
    modules: readonly string[],
    readOnly: readonly string[],
    readonly online: boolean,
    startTimeoutMs: number,
    onExit: (worker: Worker) => void,
  ) {
    const { settings } = launcher;
    this.launch = launcher.launch({
      argv: [
        process.execPath,
        `--max-old-space-size=${settings.limits.memoryMb}`,
        ...entry.execArgv,
        entry.file,
        ...modules,
      ],
      cwd: settings.workspace,
      network: online,
      readOnly,
      // A worker lives across calls: CPU time is bounded per call by the deadline instead.
      limits: { ...settings.limits, cpuSeconds: Number.POSITIVE_INFINITY },
      worker: true,
    });
    // fd 3 is the channel (a socket pair; channel.ts says why not Node's 'ipc').
    this.child = spawn(this.launch.file, this.launch.args, {
      cwd: settings.workspace,
      env: confinedEnvironment(
        { ...minimalEnvironment({ home: settings.workspace }), ...entry.env },
        this.launch.home,
      ),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    this.channel = this.child.stdio[CHANNEL_FD] as Socket;
    // An idle worker must not keep Pincer alive: its process and channel hold the event loop
    // only while a call is in flight.
    this.child.unref();
    this.channel.unref();
    (this.child.stderr as Socket | null)?.unref();
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-2000);
    });
    // The worker's stderr is diagnostics only: a read error loses some of it, nothing more.
    this.child.stderr?.on('error', () => undefined);
    this.channel.on('data', (chunk: Buffer) => this.receive(chunk));
    // A channel that fails (the worker closed its end oddly) is the worker gone: kill it.
    this.channel.on('error', () => this.kill());
    this.ready = new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`tool worker did not start in ${startTimeoutMs} ms: ${this.stderr}`));
        this.kill();
      }, startTimeoutMs);
      this.onReady = (tools) => {
        clearTimeout(timer);
        this.started = true;
        resolve(tools);
      };
      const gone = (why: string) => {
        if (this.dead) return;
        clearTimeout(timer);
        this.dead = true;
        this.channel.destroy();
        reject(new Error(`tool worker exited before it was ready (${why}): ${this.stderr.trim()}`));
        const last = this.stderr.trim().split('\n').slice(-3).join(' ');
        this.failAll(
          `the tool worker stopped (${why}) while running this call; it was replaced${last ? `: ${last}` : ''}`,
        );
        this.cleaned = this.launch.cleanup();
        onExit(this);
      };
      this.child.on('exit', (code, signal) =>
        gone(signal ? `signal ${signal}` : `exit code ${code}`),
      );
      // Spawning itself failed (the backend binary vanished): no exit event follows.
      this.child.on('error', (error) => gone(error.message));
    });
    // Start-up failures are reported through `ready` to whoever awaits it.
    this.ready.catch(() => undefined);
  }

  call(id: number, message: ToWorker): Promise<ToolOutput> {
    return new Promise((resolve) => {
      if (this.dead || this.retired) {
        resolve({ content: 'the tool worker stopped before this call reached it', isError: true });
        return;
      }
      this.pending.set(id, { resolve });
      this.channel.ref();
      this.channel.write(encodeLine(message), (error) => {
        if (error && this.pending.delete(id))
          resolve({ content: `could not reach the tool worker: ${error.message}`, isError: true });
      });
    });
  }

  cancel(id: number): void {
    if (!this.dead && !this.retired && this.channel.writable)
      this.channel.write(encodeLine({ type: 'cancel', id } satisfies ToWorker));
  }

  /** Kills the worker's whole process tree (its group; the PID namespace under bwrap). */
  kill(): void {
    try {
      if (this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** Bytes from the worker: untrusted. Nothing here may throw into the host. */
  private receive(chunk: Buffer): void {
    if (this.retired || this.dead) return;
    let lines: string[];
    try {
      lines = this.lines.push(chunk);
    } catch (error) {
      this.violation((error as Error).message);
      return;
    }
    for (const line of lines) {
      const parsed = parseFromWorker(line);
      if ('problem' in parsed) {
        this.violation(parsed.problem);
        return;
      }
      const { message } = parsed;
      if (message.type === 'ready') {
        if (this.started) {
          this.violation('a second ready message');
          return;
        }
        this.onReady(message.tools);
        continue;
      }
      const pending = this.pending.get(message.id);
      if (!pending) {
        this.violation(`a reply for call ${message.id}, which it was not running`);
        return;
      }
      this.pending.delete(message.id);
      if (this.pending.size === 0) this.channel.unref();
      pending.resolve(
        message.type === 'result'
          ? {
              content: message.output.content,
              isError: message.output.isError === true ? true : undefined,
              ...codedFailure(message.output.isError === true, message.output.code),
            }
          : {
              content: message.message,
              isError: true,
              ...codedFailure(true, message.code),
            },
      );
    }
  }

  /**
   * The worker broke the protocol: code in it wrote to the channel. It is killed (and replaced
   * when it exits); its call fails with what was wrong, and nothing it sends is read again.
   */
  private violation(problem: string): void {
    this.retired = true;
    this.channel.pause();
    this.failAll(
      `the tool worker broke the channel protocol (${problem}); it was killed and replaced`,
    );
    this.kill();
  }

  private failAll(content: string): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.resolve({ content, isError: true });
    }
    this.channel.unref();
  }
}

export class WorkerPool {
  private readonly workers = new Set<Worker>();
  private readonly waiting: Array<{ online: boolean; take: (worker?: Worker) => void }> = [];
  /** Workers that died before they were ready, in a row: past a few, stop restarting. */
  private failedStarts = 0;
  private readonly entry: WorkerEntry;
  private readonly modules: readonly string[];
  /** What a worker must see besides the workspace: its installation and the tool modules. */
  private readonly readOnly: readonly string[];
  private readonly names = new Set<string>();
  private nextId = 1;
  private started = 0;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.entry = options.entry ?? defaultWorkerEntry();
    this.modules = options.modules ?? [];
    this.readOnly = [...installationView(this.entry.file), ...this.modules];
    for (const tool of BUILTIN_TOOLS) if (!runsOnHost(tool)) this.names.add(tool.name);
    if (options.warm) {
      this.fill(false);
      this.fill(true);
      return;
    }
    if (options.prestart === false) return;
    for (let i = 0; i < (options.size ?? 2); i++) this.start(false);
    for (let i = 0; i < (options.onlineSize ?? 1); i++) this.start(true);
  }

  /** Resolves when every pre-started worker is up; rejects with the first start-up failure. */
  async ready(): Promise<void> {
    const lists = await Promise.all([...this.workers].map((worker) => worker.ready));
    for (const list of lists) for (const name of list) this.names.add(name);
  }

  /** Starts a worker in the lane a call of `tool` runs in, if that lane has none yet. */
  prepare(tool: Tool): void {
    if (this.closed || !this.handles(tool) || this.failedStarts >= MAX_FAILED_STARTS) return;
    const online = needsNetwork(tool);
    if (![...this.workers].some((worker) => worker.online === online)) this.start(online);
  }

  handles(tool: Tool): boolean {
    return this.names.has(tool.name) && !runsOnHost(tool);
  }

  get size(): number {
    return this.workers.size;
  }

  /** Workers started so far, replacements included. */
  get starts(): number {
    return this.started;
  }

  /** Process ids of the workers that hold no call (the ready ones and those still starting). */
  idlePids(): number[] {
    return [...this.workers]
      .filter((worker) => !worker.busy && !worker.dead && !worker.retired)
      .flatMap((worker) => (worker.child.pid ? [worker.child.pid] : []));
  }

  /** Resolves when every worker that holds no call is ready (a warm pool: each lane's next). */
  async idleReady(): Promise<void> {
    // A lane's next worker may be due to start in this turn of the event loop (`retire`).
    await new Promise((resolve) => setImmediate(resolve));
    const idle = [...this.workers].filter((w) => !w.busy && !w.dead && !w.retired);
    await Promise.all(idle.map((worker) => worker.ready.catch(() => undefined)));
  }

  async run(tool: Tool, input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> {
    if (this.closed) return { content: 'the sandbox is closed', isError: true };
    const worker = await this.acquire(needsNetwork(tool));
    if (!worker)
      return { content: 'the tool workers cannot start; see `pincer doctor`', isError: true };
    const id = this.nextId++;
    const wire: WireContext = {
      workspace: context.workspace,
      env: context.env,
      allowPrivateNetwork: context.allowPrivateNetwork,
      filesystem: context.filesystem,
      network: context.network,
    };
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      worker.cancel(id);
      // A tool that honours its signal answers at once; one that does not loses its worker.
      grace = setTimeout(() => worker.kill(), this.options.cancelGraceMs ?? 250);
    };
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const output = await worker.call(id, {
        type: 'run',
        id,
        tool: tool.name,
        input,
        context: wire,
      });
      if (context.signal.aborted) {
        const timedOut = (context.signal.reason as Error | undefined)?.name === 'TimeoutError';
        return {
          content: timedOut
            ? `${tool.name} timed out after ${tool.timeoutMs} ms (CKP ${TOOL_TIMEOUT})`
            : `${tool.name} was cancelled`,
          isError: true,
          ...(timedOut ? { code: TOOL_TIMEOUT } : {}),
        };
      }
      return output;
    } finally {
      clearTimeout(grace);
      context.signal.removeEventListener('abort', onAbort);
      if (this.options.warm) this.retire(worker);
      else this.release(worker);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const exits = [...this.workers].map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.dead) resolve();
          else worker.child.once('exit', () => resolve());
        }),
    );
    const all = [...this.workers];
    // Idle workers are unref'd so they never keep Pincer alive; while closing, though, Node must
    // wait for their exits, or it quits mid-close with whatever exit code happens to be set.
    const hold = setInterval(() => {}, 60_000);
    try {
      for (const worker of all) worker.kill();
      await Promise.all(exits);
      await Promise.all(all.map((worker) => worker.cleaned));
    } finally {
      clearInterval(hold);
    }
  }

  private start(online: boolean): Worker {
    const worker = new Worker(
      this.options.launcher,
      this.entry,
      this.modules,
      this.readOnly,
      online,
      this.options.startTimeoutMs ?? 20_000,
      (gone) => this.replace(gone),
    );
    this.workers.add(worker);
    this.started++;
    worker.ready.then(
      (names) => {
        this.failedStarts = 0;
        for (const name of names) this.names.add(name);
        if (!worker.busy) this.release(worker);
      },
      () => undefined,
    );
    return worker;
  }

  private replace(gone: Worker): void {
    this.workers.delete(gone);
    if (this.closed) return;
    if (!gone.started && ++this.failedStarts >= MAX_FAILED_STARTS) {
      for (const waiter of this.waiting.splice(0)) waiter.take(undefined);
      return;
    }
    // A warm pool started the lane's next worker when this one's call ended.
    if (this.options.warm && gone.used) this.fill(gone.online);
    else this.start(gone.online);
  }

  /** A warm lane: starts a worker unless one is ready or starting for the next call. */
  private fill(online: boolean): void {
    if (this.closed || this.failedStarts >= MAX_FAILED_STARTS) return;
    const next = [...this.workers].some(
      (w) => w.online === online && !w.busy && !w.dead && !w.retired,
    );
    if (!next) this.start(online);
  }

  /** A warm pool's worker after its one call: killed, and the lane's next one started. */
  private retire(worker: Worker): void {
    worker.retired = true;
    worker.kill();
    // After the call's result has gone on: starting a process costs the event loop a few ms.
    setImmediate(() => this.fill(worker.online));
  }

  private acquire(online: boolean): Promise<Worker | undefined> {
    if (this.failedStarts >= MAX_FAILED_STARTS) return Promise.resolve(undefined);
    const idle = [...this.workers].find(
      (w) => w.online === online && !w.busy && !w.dead && !w.retired,
    );
    if (idle) {
      idle.busy = true;
      idle.used = true;
      return idle.ready.then(
        () => idle,
        () => this.acquire(online),
      );
    }
    const lane = [...this.workers].filter((w) => w.online === online).length;
    const size = online ? (this.options.onlineSize ?? 1) : (this.options.size ?? 2);
    if (lane < Math.max(1, size)) this.start(online);
    return new Promise((resolve) => this.waiting.push({ online, take: resolve }));
  }

  private release(worker: Worker): void {
    if (worker.dead || worker.retired) return;
    const index = this.waiting.findIndex((w) => w.online === worker.online);
    if (index >= 0) {
      const [next] = this.waiting.splice(index, 1);
      worker.busy = true;
      worker.used = true;
      next?.take(worker);
      return;
    }
    worker.busy = false;
  }
}

/** A CKP code the worker claims is kept only on a failure, and only when it is one CKP defines. */
function codedFailure(isError: boolean, code: unknown): { code?: number } {
  return isError && isCkpErrorCode(code) ? { code } : {};
}
