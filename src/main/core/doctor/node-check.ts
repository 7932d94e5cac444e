import type { DoctorCheck } from './checks.js';

/**
 * Which Node.js runs the CLI, judged against the release schedule: a line past its end of life
 * gets no security fixes, and a line Pincer is not tested on may lack a build of better-sqlite3
 * (the one native module bound to Node's ABI).
 */

/**
 * The LTS lines CI runs the built CLI on besides its own Node (`scripts/node-runtimes.mjs`
 * prepares the same); with 20, the lines package.json's engines admit. Node 24 is not among them
 * yet: there `pincer doctor` aborts at exit in most runs (`RemoveEnvironmentCleanupHook`:
 * `(env) != nullptr`, a native module's cleanup hook), which the matrix found.
 */
export const TESTED_NODE_MAJORS: readonly number[] = [22];
const SUPPORTED_MAJORS: readonly number[] = [20, ...TESTED_NODE_MAJORS];

/** The line to recommend: the newest tested LTS. */
export const RECOMMENDED_NODE_MAJOR = Math.max(...TESTED_NODE_MAJORS);

/** The oldest release of each line that runs the CLI (require of ES modules unflagged). */
const MINIMUM: Readonly<Record<number, readonly [number, number]>> = {
  20: [20, 19],
  22: [22, 12],
};

/** End of life of each line, from the Node.js release schedule (odd lines: two months in). */
const END_OF_LIFE: Readonly<Record<number, string>> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

export function checkNode(
  version = process.versions.node,
  today: Date = new Date(),
  electron = process.versions.electron,
): DoctorCheck {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const base = { id: 'node', label: 'Node.js', details: { version } };
  // Electron brings its own Node and its own updates: the schedule below is not its concern.
  if (electron) return { ...base, status: 'ok', summary: `Node ${version} (Electron ${electron})` };
  const upgrade = `install Node ${RECOMMENDED_NODE_MAJOR} LTS`;
  const minimum = MINIMUM[major];
  if (major < 20 || (minimum !== undefined && minor < minimum[1])) {
    const needs = Object.values(MINIMUM)
      .map((m) => m.join('.'))
      .join(' or ');
    return {
      ...base,
      status: 'fail',
      summary: `Node ${version} is too old: Pincer needs ${needs} or newer; ${upgrade}`,
    };
  }
  const endOfLife = END_OF_LIFE[major];
  if (endOfLife && today.toISOString().slice(0, 10) > endOfLife) {
    return {
      ...base,
      status: 'warn',
      summary: `Node ${version} reached end of life on ${endOfLife} and gets no security fixes: ${upgrade}`,
    };
  }
  if (!SUPPORTED_MAJORS.includes(major)) {
    return {
      ...base,
      status: 'warn',
      summary: `Node ${version} is not a line Pincer is tested on (${SUPPORTED_MAJORS.join(', ')}): if a native module fails to load, ${upgrade}`,
    };
  }
  const until = endOfLife ? `, supported until ${endOfLife}` : '';
  return { ...base, status: 'ok', summary: `Node ${version} (LTS${until})` };
}
