/**
 * The workspace's threads, as seed 002 lays them out: `threads/daily/YYYY-MM-DD.md`, one per
 * local day, and `threads/weekly/YYYY-Www.md` (ISO week). The agent appends notes to today's
 * daily thread; the context builder reads the last few days and the current week.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { localDate } from '../dates.js';
import { appendInside, readTextsInside } from '../workspace-fs/index.js';

export const DAILY_DIR = path.join('threads', 'daily');
export const WEEKLY_DIR = path.join('threads', 'weekly');

/** ISO 8601 week of the local date, e.g. 2026-W48. */
export function isoWeek(at: Date): string {
  const day = new Date(Date.UTC(at.getFullYear(), at.getMonth(), at.getDate()));
  const weekday = day.getUTCDay() || 7;
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

export function dailyThreadPath(workspace: string, at: Date): string {
  return path.join(workspace, DAILY_DIR, `${localDate(at)}.md`);
}

export function weeklyThreadPath(workspace: string, at: Date): string {
  return path.join(workspace, WEEKLY_DIR, `${isoWeek(at)}.md`);
}

/**
 * Appends a timestamped section to today's daily thread (created with a title if new), through
 * the workspace guard: a thread (or a folder on its way) that is a link is refused, not followed.
 */
export async function appendDailyNote(workspace: string, text: string, at: Date): Promise<string> {
  await mkdir(workspace, { recursive: true });
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  const file = dailyThreadPath(workspace, at);
  await appendInside(workspace, path.relative(workspace, file), `\n## ${time}\n${text.trim()}\n`, {
    head: `# ${localDate(at)}\n`,
  });
  return file;
}

export interface ThreadFile {
  /** Relative to the workspace. */
  name: string;
  text: string;
}

/** Context files are read whole: a larger one is refused rather than read. */
export const MAX_CONTEXT_FILE_BYTES = 1024 * 1024;

/** A workspace file that exists but was not read, and why (a link, too large, ...). */
export interface RefusedFile {
  name: string;
  reason: string;
}

/** The daily threads of the last `days` days (today first) that exist, and this week's thread. */
export async function readRecentThreads(
  workspace: string,
  at: Date,
  days: number,
): Promise<{ daily: ThreadFile[]; weekly?: ThreadFile; refused: RefusedFile[] }> {
  const files = Array.from({ length: days }, (_, back) =>
    dailyThreadPath(workspace, new Date(at.getFullYear(), at.getMonth(), at.getDate() - back, 12)),
  );
  files.push(weeklyThreadPath(workspace, at));
  // Newest day first, the week last.
  const outcomes = await readTextsInside(
    workspace,
    files.map((file) => path.relative(workspace, file)),
    MAX_CONTEXT_FILE_BYTES,
  );
  const refused: RefusedFile[] = [];
  const threads = outcomes.map((outcome, i): ThreadFile | undefined => {
    const name = path.relative(workspace, files[i] as string);
    if (outcome && 'refused' in outcome) refused.push({ name, reason: outcome.refused });
    return outcome && 'text' in outcome ? { name, text: outcome.text } : undefined;
  });
  const weekly = threads.pop();
  const daily = threads.filter((thread): thread is ThreadFile => thread !== undefined);
  return { daily, ...(weekly ? { weekly } : {}), refused };
}
