/**
 * The workspace's threads, as seed 002 lays them out: `threads/daily/YYYY-MM-DD.md`, one per
 * local day, and `threads/weekly/YYYY-Www.md` (ISO week). The agent appends notes to today's
 * daily thread; the context builder reads the last few days and the current week.
 */
import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export const DAILY_DIR = path.join('threads', 'daily');
export const WEEKLY_DIR = path.join('threads', 'weekly');

/** Local calendar date, YYYY-MM-DD. */
export function localDate(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

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

/** Appends a timestamped section to today's daily thread (created with a title if new). */
export async function appendDailyNote(workspace: string, text: string, at: Date): Promise<string> {
  const file = dailyThreadPath(workspace, at);
  await mkdir(path.dirname(file), { recursive: true });
  const exists = await stat(file).then(
    () => true,
    () => false,
  );
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  const head = exists ? '' : `# ${localDate(at)}\n`;
  await appendFile(file, `${head}\n## ${time}\n${text.trim()}\n`);
  return file;
}

export interface ThreadFile {
  /** Relative to the workspace. */
  name: string;
  text: string;
}

/** The daily threads of the last `days` days (today first) that exist, and this week's thread. */
export async function readRecentThreads(
  workspace: string,
  at: Date,
  days: number,
): Promise<{ daily: ThreadFile[]; weekly?: ThreadFile }> {
  const daily: ThreadFile[] = [];
  for (let back = 0; back < days; back++) {
    const day = new Date(at.getFullYear(), at.getMonth(), at.getDate() - back, 12);
    const file = dailyThreadPath(workspace, day);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) daily.push({ name: path.relative(workspace, file), text });
  }
  const weeklyFile = weeklyThreadPath(workspace, at);
  const weeklyText = await readFile(weeklyFile, 'utf8').catch(() => undefined);
  return {
    daily,
    ...(weeklyText !== undefined
      ? { weekly: { name: path.relative(workspace, weeklyFile), text: weeklyText } }
      : {}),
  };
}
