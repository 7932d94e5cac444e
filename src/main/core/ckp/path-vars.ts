/** `{identity_name}` / `{tenant_id}` in path values (§5.6), then `~` and relative resolution. */
import path from 'node:path';
import type { Result } from '../../../shared/result.js';

export interface PathVars {
  identity_name: string;
  tenant_id: string;
}

/** The substituted path, or the unknown variables it names. */
export type PathResult = Result<string, string[]>;

/** Substitutes the standard variables; any other `{name}` is an error, never left in place. */
export function substitutePathVars(template: string, vars: PathVars): PathResult {
  const unknown: string[] = [];
  const value = template.replace(/\{([^{}]*)\}/g, (whole, name: string) => {
    if (name === 'identity_name' || name === 'tenant_id') return vars[name];
    unknown.push(whole);
    return whole;
  });
  return unknown.length > 0 ? { ok: false, error: unknown } : { ok: true, value };
}

/** `~/x` to the home directory, relative paths against `baseDir`; keeps a trailing slash. */
export function resolvePathValue(value: string, baseDir: string, homedir: string): string {
  const expanded =
    value === '~' || value.startsWith('~/') ? path.join(homedir, value.slice(1)) : value;
  const absolute = path.resolve(baseDir, expanded);
  return value.endsWith('/') && !absolute.endsWith('/') ? `${absolute}/` : absolute;
}
