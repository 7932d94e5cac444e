/**
 * Shell restrictions of the Sandbox primitive, checked before anything is spawned:
 * `blocked_patterns` are regular expressions over the full command line (003 §5.7) and
 * `blocked_commands` are literal lines where `*` stands for anything.
 */
import { SANDBOX_DENIED, SandboxError } from './errors.js';

export interface ShellRules {
  mode: 'deny' | 'restricted' | 'full';
  blockedCommands: readonly string[];
  blockedPatterns: readonly string[];
}

export interface CommandCheck {
  /** Undefined when the command may run; else why not. */
  check(commandLine: string): string | undefined;
}

function globToRegex(glob: string): RegExp {
  const body = glob
    .trim()
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'))
    .join('.*');
  return new RegExp(body);
}

/** Compiles the rules once; a pattern that is not a valid regex fails loudly at start-up. */
export function commandCheck(rules: ShellRules): CommandCheck {
  const compiled = [
    ...rules.blockedPatterns.map((source) => {
      try {
        return { source, regex: new RegExp(source) };
      } catch (error) {
        throw new SandboxError(
          SANDBOX_DENIED,
          `sandbox shell.blocked_patterns has an invalid regular expression ${JSON.stringify(source)}: ${(error as Error).message}`,
        );
      }
    }),
    ...rules.blockedCommands.map((source) => ({ source, regex: globToRegex(source) })),
  ];
  return {
    check(commandLine) {
      if (rules.mode === 'deny') return 'the sandbox allows no commands (shell mode deny)';
      const hit = compiled.find(({ regex }) => regex.test(commandLine));
      return hit
        ? `the command matches the blocked pattern ${JSON.stringify(hit.source)}`
        : undefined;
    },
  };
}
