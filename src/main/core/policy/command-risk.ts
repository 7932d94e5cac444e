/**
 * Command lines that delete, overwrite or give away more than they look like, and argv calls
 * whose program would run another one (program-table.ts). The approval preview names them to a
 * person, and the policy never lets an "approve for session" grant cover one: each such call is
 * asked about on its own.
 */
import { commandCallOf } from './command-match.js';
import { whatRuns } from './what-runs.js';

const DESTRUCTIVE_COMMANDS: Array<[RegExp, string]> = [
  // A flag anywhere in the same command counts: `rm build -rf /` as much as `rm -rf build`.
  [/\brm\b[^;&|\n]*\s(-\w*[rR]\w*|--recursive)\b/, 'deletes files recursively (rm -r)'],
  [/\brm\b[^;&|\n]*\s(-\w*f\w*|--force)\b/, 'deletes files without asking (rm -f)'],
  [/\b(mkfs(\.\w+)?|fdisk|parted|wipefs)\b/, 'formats or repartitions a disk'],
  [/\bdd\b.*\bof=/, 'writes raw bytes to a file or device (dd of=)'],
  [/\bshred\b/, 'destroys file contents (shred)'],
  [/>\s*\/dev\/(sd|nvme|disk|hd)/, 'writes to a disk device'],
  [/\bchmod\s+(-\w*R\w*\s+)?[0-7]*7{2}\b/, 'opens permissions to everyone'],
  [/\bgit\s+push\b.*(--force\b|-f\b)/, 'rewrites a remote history (git push --force)'],
  [/\bgit\s+(reset\s+--hard|clean\s+-\w*[fdx])/, 'discards local changes (git reset/clean)'],
  [/\b(curl|wget)\b[^|]*\|\s*(ba|z)?sh\b/, 'runs a script straight from the network'],
  [/\bsudo\b/, 'asks for administrator rights (sudo)'],
  [/:\(\)\s*\{.*:\|:/, 'a fork bomb'],
];

/** Why a command line is destructive; empty when no pattern matches. */
export function destructiveReasons(line: string): string[] {
  return DESTRUCTIVE_COMMANDS.filter(([pattern]) => pattern.test(line)).map(([, why]) => why);
}

/** Whether the call asks for a command (any exec-like tool) that is destructive. */
export function isDestructiveCall(input: Record<string, unknown>): boolean {
  const command = commandCallOf(input);
  return command !== undefined && destructiveReasons(command.line).length > 0;
}

/**
 * What an argv call runs besides its program (`git -c alias.x=!cmd`, `sed 1e…`), one sentence
 * each. A shell line is not read: only a rule that says `shell: true` matches one, as written.
 */
export function runsReasons(input: Record<string, unknown>): string[] {
  const command = commandCallOf(input);
  return command && !command.shell ? whatRuns(command.program, command.args) : [];
}
