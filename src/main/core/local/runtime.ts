import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { Llama } from 'node-llama-cpp';

export type GpuChoice = 'auto' | false | 'cuda' | 'vulkan' | 'metal';

export interface RuntimeOptions {
  /** `auto` (default) offloads to CUDA/Metal/Vulkan when node-llama-cpp finds one, else CPU. */
  gpu?: GpuChoice;
  /** CPU threads for evaluation; defaults to `defaultThreads()` (physical cores, load-aware). */
  threads?: number;
}

export interface LocalRuntime {
  llama: Llama;
  /** The most threads an evaluation may use (what contexts are created with). */
  threads: number;
  /** The backend in use: `cuda`, `metal`, `vulkan`, or false for CPU only. */
  gpu: Llama['gpu'];
  /**
   * Sets the thread budget for the next evaluation and returns it: chosen again each time from
   * how busy the machine is, unless a thread count was given.
   */
  pickThreads(): number;
}

export interface CpuFacts {
  /** Logical CPUs this process may use. */
  logical: number;
  /** Physical cores among them, where the OS says (undefined: unknown). */
  physical?: number;
  /** The 1-minute load average (runnable threads, on any CPU). */
  load: number;
}

/**
 * Threads are always explicit: node-llama-cpp's own default (every logical core) made generation
 * 20-800x slower on a loaded 2-core machine, and a desktop app always shares the machine. So:
 * physical cores (a second hyper-thread adds little to matrix work and contends for the same
 * units), one left for the rest of the desktop from 4 up, and no more than the CPUs the load
 * average leaves idle, since a thread that must wait for a CPU stalls every other one at each
 * layer's barrier.
 */
export function threadsFor(cpu: CpuFacts): number {
  const cores = Math.min(cpu.logical, cpu.physical ?? cpu.logical);
  const withHeadroom = cores >= 4 ? cores - 1 : cores;
  const idle = Math.floor(cpu.logical - cpu.load);
  return Math.max(1, Math.min(withHeadroom, idle));
}

/** Physical cores on Linux (distinct package and core ids in sysfs); undefined elsewhere. */
export function physicalCores(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const cores = new Set<string>();
  try {
    for (const entry of readdirSync('/sys/devices/system/cpu')) {
      if (!/^cpu\d+$/.test(entry)) continue;
      const topology = `/sys/devices/system/cpu/${entry}/topology`;
      const pkg = readFileSync(`${topology}/physical_package_id`, 'utf8').trim();
      const core = readFileSync(`${topology}/core_id`, 'utf8').trim();
      cores.add(`${pkg}:${core}`);
    }
  } catch {
    return undefined;
  }
  return cores.size || undefined;
}

export function defaultThreads(): number {
  return threadsFor({ ...machineCpus(), load: os.loadavg()[0] ?? 0 });
}

function machineCpus(): Omit<CpuFacts, 'load'> {
  return { logical: os.availableParallelism(), physical: physicalCores() };
}

/** CPU time the whole machine and this process had used at one moment, in ms. */
export interface CpuSample {
  at: number;
  machineBusyMs: number;
  ownMs: number;
}

export function sampleCpu(): CpuSample {
  let busy = 0;
  for (const { times } of os.cpus()) busy += times.user + times.nice + times.sys + times.irq;
  const own = process.cpuUsage();
  return { at: performance.now(), machineBusyMs: busy, ownMs: (own.user + own.system) / 1000 };
}

/**
 * Chooses the threads of each evaluation from what other programs keep busy now, so a machine
 * that gets busy mid-conversation gets fewer threads on the next turn and more once it calms
 * down. "Busy" is the CPU time the machine spent since the previous choice minus this process's
 * own (the model's threads must not count against themselves, as they would in the load
 * average); the load average stands in when the window is too short or over a minute long.
 */
export class AdaptiveThreads {
  private last?: CpuSample;

  constructor(
    private readonly cpus: Omit<CpuFacts, 'load'> = machineCpus(),
    private readonly sample: () => CpuSample = sampleCpu,
    private readonly loadAverage: () => number = () => os.loadavg()[0] ?? 0,
  ) {
    // The first window runs from here (the runtime and model loading): fresher than the load
    // average, which still holds a minute of whatever ran before, this process included.
    this.last = sample();
  }

  /** The most threads this machine could give (nothing else running). */
  get ceiling(): number {
    return threadsFor({ ...this.cpus, load: 0 });
  }

  next(): number {
    const now = this.sample();
    const last = this.last;
    this.last = now;
    const wallMs = last ? now.at - last.at : 0;
    // Too short a window says nothing; over a minute, the load average is as fresh and has no
    // share of ours in it.
    const measured = last !== undefined && wallMs >= 200 && wallMs <= 60_000;
    const others = measured
      ? (now.machineBusyMs - last.machineBusyMs - (now.ownMs - last.ownMs)) / wallMs
      : this.loadAverage();
    return threadsFor({ ...this.cpus, load: Math.max(0, others) });
  }
}

/** Loads the llama.cpp binding once per options; never builds from source at run time. */
export async function loadRuntime(options: RuntimeOptions = {}): Promise<LocalRuntime> {
  const adaptive = options.threads === undefined ? new AdaptiveThreads() : undefined;
  const threads = options.threads ?? adaptive?.ceiling ?? 1;
  // Imported here, not at the top: a command or turn that never runs the local model never
  // loads node-llama-cpp (hundreds of modules).
  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  const base = {
    build: 'never',
    maxThreads: adaptive?.next() ?? threads,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  } as const;
  let llama: Llama;
  try {
    llama = await getLlama({ ...base, gpu: options.gpu ?? 'auto' });
  } catch (error) {
    // A GPU binary that is absent or fails to start must not stop local chat: fall back to CPU.
    if (options.gpu === false) throw error;
    llama = await getLlama({ ...base, gpu: false });
  }
  return {
    llama,
    threads,
    gpu: llama.gpu,
    pickThreads() {
      // node-llama-cpp splits llama.maxThreads among the evaluations running at each batch.
      if (adaptive) llama.maxThreads = adaptive.next();
      return llama.maxThreads;
    },
  };
}
