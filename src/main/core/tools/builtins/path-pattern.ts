/**
 * Glob arguments are paths too: a pattern is relative to the folder it searches and cannot
 * climb out of it. Refused before anything is walked: an absolute start (`/`, `\`, a drive
 * letter, `~`, an unexpanded `$VAR`) and any `..` segment, inside brace and extglob
 * alternatives too. The caller still checks every match on real paths (confine): syntax alone
 * cannot see a symlinked folder.
 */
import { ToolError } from '../types.js';

const ABSOLUTE_START = /^(?:[/\\~$]|[A-Za-z]:)/;
/** Where one path segment ends in a glob: separators, braces, extglob groups and choices. */
const SEGMENT_END = /[/\\{},()|]/;

export function relativeGlob(input: unknown, name = 'glob'): string {
  if (typeof input !== 'string') throw new ToolError(`${name} must be a string`);
  if (input.includes('\u0000')) throw new ToolError(`${name} contains a null byte`);
  if (ABSOLUTE_START.test(input.trim()))
    throw new ToolError(
      `${name} "${input}" must be relative to the folder searched (no /, \\, ~, $VAR or drive letter at the start)`,
    );
  if (input.split(SEGMENT_END).some((segment) => segment.trim() === '..'))
    throw new ToolError(`${name} "${input}" cannot go up out of the folder searched (..)`);
  return input;
}
