/**
 * Whole-process measurements: wall time (cases interleaved, median and spread), peak RSS of the
 * process tree, and counts that do not depend on how busy the machine is: files loaded and
 * processes started (from strace, where it is installed).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface ProcessCase {
  name: string;
  argv: string[];
  env?: Record<string, string>;
  /** Runs before each sample (fresh data dirs and the like). */
  before?: () => Promise<void>;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { median, min: sorted[0] ?? 0, max: sorted.at(-1) ?? 0 };
}

export function run(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ ms: number; code: number | null; stdout: string; stderr: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const [file = '', ...args] = argv;
    const child = spawn(file, args, { env: { ...process.env, ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => {
      stdout += data;
    });
    child.stderr.on('data', (data: Buffer) => {
      stderr += data;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ ms: performance.now() - start, code, stdout, stderr, pid: child.pid ?? 0 }),
    );
  });
}

/** Wall time per case over `samples` rounds, the cases interleaved in every round. */
export async function timeCases(
  cases: ProcessCase[],
  samples: number,
): Promise<Map<string, Spread>> {
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < samples + 1; round++) {
    for (const c of cases) {
      await c.before?.();
      const result = await run(c.argv, c.env);
      if (result.code !== 0) {
        throw new Error(`${c.name} exited ${result.code}: ${result.stderr.slice(-500)}`);
      }
      // Round 0 warms the page cache.
      if (round > 0) times.get(c.name)?.push(result.ms);
    }
  }
  return new Map([...times].map(([name, values]) => [name, spread(values)]));
}

/** Resident memory of `pid` and all its descendants, in KiB. */
export function treeRssKb(pid: number): number {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      // Field 24 (rss) in pages; fields here start at field 3.
      rss.set(Number(entry), (Number(fields[21]) * 4096) / 1024);
    } catch {
      // Gone while we looked.
    }
  }
  let total = 0;
  const inTree = (candidate: number): boolean => {
    for (let p: number | undefined = candidate; p && p > 1; p = parents.get(p)) {
      if (p === pid) return true;
    }
    return false;
  };
  for (const [candidate, kb] of rss) if (inTree(candidate)) total += kb;
  return total;
}

/**
 * Proportional memory (PSS) of `pid` and its descendants, in KiB: pages shared between them
 * (the Node binary every worker maps) are counted once across the tree, not once per process.
 */
export function treePssKb(pid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone while we looked.
    }
  }
  let total = 0;
  for (const candidate of parents.keys()) {
    let p: number | undefined = candidate;
    while (p && p > 1 && p !== pid) p = parents.get(p);
    if (p !== pid) continue;
    try {
      const rollup = readFileSync(`/proc/${candidate}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return total;
}

/** Peak RSS of the process tree (sampled every 5 ms) and how many processes it had at most. */
export async function peakTree(c: ProcessCase): Promise<{ peakKb: number }> {
  await c.before?.();
  const [file = '', ...args] = c.argv;
  const child = spawn(file, args, { env: { ...process.env, ...c.env }, stdio: 'ignore' });
  let peakKb = 0;
  const timer = setInterval(() => {
    if (child.pid) peakKb = Math.max(peakKb, treeRssKb(child.pid));
  }, 5);
  await new Promise((resolve) => child.on('close', resolve));
  clearInterval(timer);
  return { peakKb };
}

export const hasStrace = ['/usr/bin/strace', '/bin/strace'].some((file) => existsSync(file));

/** Files of code loaded (.js .mjs .cjs .json .node) and processes started, from strace. */
export async function countLoads(
  c: ProcessCase,
): Promise<{ files: number; processes: number } | undefined> {
  if (!hasStrace) return undefined;
  await c.before?.();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-strace-'));
  const log = path.join(dir, 'trace');
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(
        'strace',
        ['-f', '-qq', '-e', 'trace=openat,execve', '-o', log, ...c.argv],
        { env: { ...process.env, ...c.env } },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    const lines = (await readFile(log, 'utf8')).split('\n');
    const files = new Set<string>();
    // A process is a pid whose execve succeeded (with -f a call may be split across lines).
    const processes = new Set<string>();
    for (const line of lines) {
      if (/ = -1 /.test(line)) continue;
      const opened = /openat\([^"]*"([^"]+\.(?:js|mjs|cjs|json|node))"/.exec(line);
      if (opened?.[1]) files.add(opened[1]);
      if (/execve/.test(line) && / = 0$/.test(line)) processes.add(line.split(' ')[0] ?? '');
    }
    return { files: files.size, processes: processes.size };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const ms = (value: number) => `${value.toFixed(0)} ms`;
export const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;
export const range = (s: Spread, unit: (v: number) => string = ms) =>
  `${unit(s.median)} (${unit(s.min)}..${unit(s.max)})`;
