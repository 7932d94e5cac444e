import { resolveDataDir } from '../paths.js';
import { PINCER_VERSION } from '../product.js';
import {
  type CheckStatus,
  checkDataDir,
  checkElectron,
  checkGpu,
  checkKeychain,
  checkModels,
  type DoctorCheck,
} from './checks.js';
import { checkNativeModules } from './native-check.js';
import { checkNode } from './node-check.js';
import { checkSandbox } from './sandbox-check.js';
import { checkSecrets } from './secrets-check.js';

export interface DoctorReport {
  pincer: string;
  platform: string;
  arch: string;
  dataDir: string;
  /** The worst status of all checks. */
  status: CheckStatus;
  checks: DoctorCheck[];
}

export interface DoctorOptions {
  dataDir?: string;
  /** Where to resolve the `electron` package from (the installed app's directory). */
  appDir: string;
}

const rank: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** Runs every environment check; none of them throws, each reports what it found. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const dataDir = options.dataDir ?? resolveDataDir();
  const checks = await Promise.all([
    Promise.resolve(checkNode()),
    checkDataDir(dataDir),
    checkElectron(options.appDir),
    checkNativeModules(),
    checkKeychain(),
    checkSecrets(dataDir),
    checkSandbox({ dataDir }),
    checkModels(dataDir),
    checkGpu(),
  ]);
  const status = checks.reduce<CheckStatus>(
    (worst, check) => (rank[check.status] > rank[worst] ? check.status : worst),
    'ok',
  );
  return {
    pincer: PINCER_VERSION,
    platform: process.platform,
    arch: process.arch,
    dataDir,
    status,
    checks,
  };
}

const marks: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.label.length));
  const lines = [
    `Pincer ${report.pincer} on ${report.platform}/${report.arch}`,
    ...report.checks.map(
      (check) => `  [${marks[check.status]}] ${check.label.padEnd(width)}  ${check.summary}`,
    ),
  ];
  return lines.join('\n');
}
