/**
 * Resource limits as a wrapper around the command: `prlimit` (util-linux) where it exists, else
 * the shell's `ulimit` (setrlimit in the shell that then execs the command). Both set the hard
 * limit too, so the tool cannot raise them back.
 */
import type { ResourceLimits } from './settings.js';

export type LimitedResource = 'cpu' | 'memory' | 'processes' | 'files' | 'fileSize';

export interface LimitOptions {
  /**
   * A JS worker: V8 reserves address space far beyond its heap (WebAssembly alone reserves
   * gigabytes of guard pages), so RLIMIT_AS is left off and --max-old-space-size bounds the heap.
   */
  worker?: boolean;
}

const MB = 1024 * 1024;

const finiteOr = (value: number) => (Number.isFinite(value) ? String(value) : 'unlimited');

export function prlimitArgs(limits: ResourceLimits, options: LimitOptions = {}): string[] {
  return [
    // Soft limit first (SIGXCPU, reported as such), the hard limit a second later (SIGKILL).
    `--cpu=${finiteOr(limits.cpuSeconds)}:${finiteOr(limits.cpuSeconds + 1)}`,
    ...(options.worker ? [] : [`--as=${limits.memoryMb * MB}`]),
    `--nproc=${limits.maxProcesses}`,
    `--nofile=${limits.maxOpenFiles}`,
    `--fsize=${limits.maxFileBytes}`,
    '--',
  ];
}

/**
 * `sh -c 'ulimit ...; exec "$@"' sh cmd args...` for systems without prlimit (macOS). Process
 * count (-u) is left out where the shell lacks it (dash); the caller reports that.
 */
export function ulimitScript(limits: ResourceLimits, options: LimitOptions = {}): string {
  const blocks = Math.floor(limits.maxFileBytes / 512);
  return [
    `ulimit -t ${finiteOr(limits.cpuSeconds)}`,
    ...(options.worker ? [] : [`ulimit -v ${limits.memoryMb * 1024} 2>/dev/null`]),
    `(ulimit -u ${limits.maxProcesses}) 2>/dev/null && ulimit -u ${limits.maxProcesses}`,
    `ulimit -n ${limits.maxOpenFiles}`,
    `ulimit -f ${blocks}`,
    'exec "$@"',
  ].join('; ');
}
