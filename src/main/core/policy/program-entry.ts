/**
 * How the program table describes a program: the options, words, scripts and subcommands
 * through which it runs another program (program-table.ts holds the entries; what-runs.ts reads
 * an argv against them).
 */
import type { ReaderName } from './script-readers.js';

export interface OptionEntry {
  long?: readonly string[];
  short?: string;
  takes?: 'value' | 'optional';
  /** What using the option runs (or writes); any use counts, whatever its value. */
  runs?: string;
  /** A reader for its value (git -c key=value). */
  reads?: ReaderName;
  /** It gives the script, so operands are files (sed -e/-f, awk -f); its value joins the script. */
  script?: boolean;
  /** Spelled in full, it makes the script and operand readers stand down (sed --sandbox). */
  disarms?: boolean;
}

export interface WordEntry {
  /** Any argument word that matches, wherever it stands. */
  match: RegExp;
  runs: string;
}

export interface ProgramEntry {
  /** Every call runs another program. */
  always?: string;
  options?: readonly OptionEntry[];
  abbreviations?: boolean;
  /** A first argument without a dash is a cluster of short options (`tar xzf a.tgz`). */
  bundledFirst?: boolean;
  /** Options end at the first operand (git's own options, before the subcommand). */
  optionsFirst?: boolean;
  words?: readonly WordEntry[];
  /** The first operand is a script for this reader, unless an option gave the script. */
  script?: ReaderName;
  /** Every operand goes to this reader. */
  operands?: ReaderName;
  /** A first operand naming a subcommand is read with that subcommand's entry. */
  subcommands?: Readonly<Record<string, ProgramEntry>>;
}

export interface ProgramModel extends ProgramEntry {
  /** Program names as run (the basename); `*` stands for any characters. */
  names: readonly string[];
}

/** The table's wording for what an entry runs, shared by entries. */
export const NAMED_PROGRAM = 'runs the program named in its arguments';
export const SHELL_LINE = 'runs the shell command in its value';
