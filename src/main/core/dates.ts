/** Calendar helpers shared by layers that must not depend on each other (policy, memory). */

/** Local calendar date, YYYY-MM-DD. */
export function localDate(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}
