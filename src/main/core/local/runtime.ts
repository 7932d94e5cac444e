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
  threads: number;
  /** The backend in use: `cuda`, `metal`, `vulkan`, or false for CPU only. */
  gpu: Llama['gpu'];
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
  return threadsFor({
    logical: os.availableParallelism(),
    physical: physicalCores(),
    load: os.loadavg()[0] ?? 0,
  });
}

/** Loads the llama.cpp binding once per options; never builds from source at run time. */
export async function loadRuntime(options: RuntimeOptions = {}): Promise<LocalRuntime> {
  const threads = options.threads ?? defaultThreads();
  // Imported here, not at the top: a command or turn that never runs the local model never
  // loads node-llama-cpp (hundreds of modules).
  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  const base = {
    build: 'never',
    maxThreads: threads,
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
  return { llama, threads, gpu: llama.gpu };
}
