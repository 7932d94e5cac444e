/** Whether this process can show the dashboard (kept apart so checking it loads no Ink). */

/** The smallest terminal the dashboard lays out in; `pincer chat` uses line mode below it. */
export const MIN_COLUMNS = 60;
export const MIN_ROWS = 16;

export function terminalFits(
  stdin: { isTTY?: boolean } = process.stdin,
  stdout: { isTTY?: boolean; columns?: number; rows?: number } = process.stdout,
): boolean {
  return (
    stdin.isTTY === true &&
    stdout.isTTY === true &&
    (stdout.columns ?? 0) >= MIN_COLUMNS &&
    (stdout.rows ?? 0) >= MIN_ROWS
  );
}
