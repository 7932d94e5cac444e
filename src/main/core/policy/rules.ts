/**
 * CKP Policy rules (§5.8): an ordered list, first match wins, no match denies. A rule matches by
 * scope (`all`, `tool` with `match.annotations`, `category` with `match.category`) and then by its
 * `conditions`. CKP defines `path_within`; Pincer adds, inside `conditions` (which CKP leaves
 * open): `tool` (name globs), `command` (argv globs or /regex/, see command-match.ts), `shell`
 * (true: the rule is about shell lines; false: about argv calls), `args` (per argument glob or
 * /regex/), `hosts` (host globs every URL argument must match) and `labels`.
 */
import path from 'node:path';
import type { EffectivePolicyRule } from '../ckp/index.js';
import { localDate } from '../dates.js';
import { type CommandCall, commandCallOf, commandMatches } from './command-match.js';
import type { SessionScopeSpec } from './session-scope.js';

export interface ToolFacts {
  name: string;
  category?: string;
  /** MCP annotations (readOnlyHint, destructiveHint, ...); untrusted hints. */
  annotations?: Record<string, unknown>;
  tier: 'safe' | 'guarded' | 'unsafe';
  labels?: string[];
  /** Files the tool writes whatever its arguments (see ToolSpec.writes). */
  writes?: readonly string[];
  /** The arguments an "approve for session" is scoped to (see ToolSpec.sessionScope). */
  sessionScope?: SessionScopeSpec;
}

export interface RuleContext {
  /** `${workspace}` and relative paths resolve against it. */
  workspace: string;
  home: string;
  /** The clock behind `${today}` in declared writes. */
  now?: () => Date;
}

export type RuleAction = EffectivePolicyRule['action'];

export interface RuleMatch {
  rule: EffectivePolicyRule;
  /** What the call would touch, as the rule saw it (becomes the capability grant). */
  paths: string[];
  hosts: string[];
  commands: string[];
}

const PATH_KEYS = /^(path|paths|file|files|dir|directory|cwd|target|source|destination|root)$/i;
const URL_KEYS = /^(url|urls|uri|endpoint|href)$/i;

export function firstMatch(
  rules: readonly EffectivePolicyRule[],
  tool: ToolFacts,
  args: Record<string, unknown>,
  context: RuleContext,
): RuleMatch | undefined {
  const command = commandCallOf(args);
  const today = localDate((context.now ?? (() => new Date()))());
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder of declared writes
  const declared = (tool.writes ?? []).map((p) => p.replaceAll('${today}', today));
  const touched = {
    paths: [...valuesOf(args, PATH_KEYS), ...declared].map((p) => resolvePath(p, context)),
    hosts: valuesOf(args, URL_KEYS).flatMap((u) => hostOf(u)),
    command,
  };
  for (const rule of rules) {
    if (matches(rule, tool, args, touched, context)) {
      return {
        rule,
        paths: touched.paths,
        hosts: touched.hosts,
        commands: command ? [command.line] : [],
      };
    }
  }
  return undefined;
}

function matches(
  rule: EffectivePolicyRule,
  tool: ToolFacts,
  args: Record<string, unknown>,
  touched: { paths: string[]; hosts: string[]; command: CommandCall | undefined },
  context: RuleContext,
): boolean {
  if (
    rule.scope === 'category' &&
    (!rule.match?.category || rule.match.category !== tool.category)
  ) {
    return false;
  }
  if (rule.scope === 'tool' && rule.match?.annotations) {
    for (const [key, want] of Object.entries(rule.match.annotations)) {
      if (tool.annotations?.[key] !== want) return false;
    }
  }
  const conditions = (rule.conditions ?? {}) as Record<string, unknown>;
  if (typeof conditions.path_within === 'string') {
    const root = resolvePath(conditions.path_within, context);
    // A call that names no path cannot be shown to stay inside: the rule does not apply.
    if (touched.paths.length === 0 || !touched.paths.every((p) => within(p, root))) return false;
  }
  const toolGlobs = strings(conditions.tool);
  if (toolGlobs.length && !toolGlobs.some((g) => patternMatches(g, tool.name, true))) return false;
  const { command } = touched;
  if (typeof conditions.shell === 'boolean' && command?.shell !== conditions.shell) return false;
  const commandPatterns = strings(conditions.command);
  if (commandPatterns.length) {
    // A shell line is matched only by a rule that says it is about shell lines.
    const shellRule = conditions.shell === true;
    if (!command || !commandPatterns.some((p) => commandMatches(p, command, shellRule)))
      return false;
  }
  const hostGlobs = strings(conditions.hosts);
  if (hostGlobs.length) {
    if (touched.hosts.length === 0) return false;
    if (
      !touched.hosts.every((h) => hostGlobs.some((g) => patternMatches(g.toLowerCase(), h, false)))
    )
      return false;
  }
  const argPatterns = conditions.args;
  if (argPatterns && typeof argPatterns === 'object') {
    for (const [key, pattern] of Object.entries(argPatterns as Record<string, unknown>)) {
      const value = args[key];
      if (value === undefined || typeof pattern !== 'string') return false;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (!patternMatches(pattern, text, false)) return false;
    }
  }
  const labels = strings(conditions.labels);
  if (labels.length && !labels.every((l) => tool.labels?.includes(l))) return false;
  return true;
}

/** `/regex/flags` or a glob. In a path-like glob (`pathLike`) `*` stops at '/', `**` does not. */
export function patternMatches(pattern: string, text: string, pathLike: boolean): boolean {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    try {
      return new RegExp(regex[1] ?? '', regex[2]).test(text);
    } catch {
      return false;
    }
  }
  return globRegex(pattern, pathLike).test(text);
}

/** Compiled globs: the same few rules are matched on every turn's file reads. */
const compiledGlobs = new Map<string, RegExp>();

function globRegex(glob: string, pathLike: boolean): RegExp {
  const key = `${pathLike ? 'p' : 't'}${glob}`;
  let compiled = compiledGlobs.get(key);
  if (!compiled) {
    if (compiledGlobs.size >= 512) compiledGlobs.clear();
    compiled = compileGlob(glob, pathLike);
    compiledGlobs.set(key, compiled);
  }
  return compiled;
}

function compileGlob(glob: string, pathLike: boolean): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += pathLike ? '[^/]*' : '.*';
    else if (c === '?') out += '.';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function valuesOf(args: Record<string, unknown>, keys: RegExp): string[] {
  return Object.entries(args).flatMap(([key, value]) => (keys.test(key) ? strings(value) : []));
}

function resolvePath(text: string, context: RuleContext): string {
  const expanded = text
    .replaceAll('${workspace}', context.workspace)
    .replace(/^~(?=$|\/)/, context.home);
  return path.resolve(context.workspace, expanded);
}

export function within(candidate: string, root: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function hostOf(url: string): string[] {
  try {
    return [new URL(url).hostname.toLowerCase()];
  } catch {
    // Not a URL: a bare host name is still a host.
    return /^[a-z0-9.-]+$/i.test(url) ? [url.toLowerCase()] : ['<invalid url>'];
  }
}
