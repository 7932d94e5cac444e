/**
 * The doctor's sandbox check goes the tools' own way: it opens a sandbox exactly as a run does
 * (backend detection, the same launcher and argv builder, a pre-started worker), runs one
 * command that writes into a scratch workspace and one worker call that reads it back. So the
 * doctor cannot say "works" where the tools fail (a worker that cannot load its installation,
 * a view that lacks the shell), and says which step broke when they do.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkerEntry } from '../sandbox/index.js';
import { createSandbox, detectBackend, type Sandbox, sandboxSettings } from '../sandbox/index.js';
import { fsRead, runTool, sysExec } from '../tools/index.js';
import type { DoctorCheck } from './checks.js';

export interface SandboxCheckOptions {
  /** Pincer's data dir: denied to tools, as in a run. */
  dataDir?: string;
  /** The worker script (a test's, or a packaged app's own); the default one otherwise. */
  workerEntry?: WorkerEntry;
}

const PROBE_TEXT = 'pincer-sandbox-probe';

/** Runs a command and a worker call through a freshly opened sandbox; undefined when both work. */
async function probe(sandbox: Sandbox, workspace: string): Promise<string | undefined> {
  const settings = { workspace, executor: sandbox.executor };
  const signal = AbortSignal.timeout(30_000);
  const command = await runTool(
    sysExec,
    { command: `echo ${PROBE_TEXT} > probe.txt`, shell: true, timeout_ms: 10_000 },
    settings,
    signal,
  );
  if (command.isError) return `a confined command failed: ${firstLine(command.content)}`;
  const read = await runTool(fsRead, { path: 'probe.txt' }, settings, signal);
  if (read.isError || read.content.trim() !== PROBE_TEXT)
    return `a tool worker could not read the workspace: ${firstLine(read.content)}`;
  return undefined;
}

export async function checkSandbox(options: SandboxCheckOptions = {}): Promise<DoctorCheck> {
  const backend = await detectBackend();
  const limits = backend.warnings.length ? `; ${backend.warnings.join('; ')}` : '';
  const details: Record<string, unknown> = {
    backend: backend.kind,
    reason: backend.reason,
    warnings: backend.warnings,
    limits: backend.limiter,
    ...(backend.pidsCgroupRoot ? { pidsCgroup: backend.pidsCgroupRoot } : {}),
  };
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'pincer-doctor-'));
  let failure: string | undefined;
  let sandbox: Sandbox | undefined;
  try {
    sandbox = await createSandbox({
      backend,
      settings: sandboxSettings({ workspace, dataDir: options.dataDir }),
      pool: { size: 1, onlineSize: 0, entry: options.workerEntry },
    });
    failure = await probe(sandbox, workspace);
  } catch (error) {
    failure = firstLine(error instanceof Error ? error.message : String(error));
  } finally {
    await sandbox?.close();
    await rm(workspace, { recursive: true, force: true });
  }
  details.probe = failure ?? 'a confined command and a tool worker ran in a scratch workspace';
  if (failure)
    return {
      id: 'sandbox',
      label: 'Tool sandbox',
      status: 'fail',
      summary: `${backend.kind}: tools cannot run: ${failure}`,
      details,
    };
  return {
    id: 'sandbox',
    label: 'Tool sandbox',
    status: backend.kind === 'process' ? 'warn' : 'ok',
    summary: `${backend.kind}: ${backend.reason}${limits}`,
    details,
  };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? text;
}
