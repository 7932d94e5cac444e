/**
 * The files a finished, writing tool call named: the arguments the policy reads as paths (path,
 * file, target, …), never a tool's name. The desktop's tool card lists them; a channel that takes
 * files sends them back.
 */
const PATH_KEYS = /^(path|paths|file|files|target|destination)$/i;
const MAX_LISTED = 20;

export function writtenPathArguments(input: Readonly<Record<string, unknown>>): string[] {
  const found = Object.entries(input)
    .filter(([key]) => PATH_KEYS.test(key))
    .flatMap(([, value]) => (Array.isArray(value) ? value : [value]))
    .filter((value): value is string => typeof value === 'string' && value.length > 0);
  return [...new Set(found)].slice(0, MAX_LISTED);
}
