/**
 * A registry of secret values known to this process, and redaction of them in any text.
 * Every read of the secrets module registers the value it returns, so logs, errors and CLI
 * output can be passed through `redact()`. The policy scanner of #7 builds on this: it can
 * add variants (encodings) with `addVariant`, or read `entries()` to scan with its own rules.
 */

export interface RedactionEntry {
  value: string;
  /** The secret's name when known: rendered as [REDACTED:NAME]; otherwise ***. */
  name?: string;
}

/** Derives other spellings of a value that could leak (e.g. base64, URL-encoded). */
export type VariantFn = (value: string) => string[];

/** Shorter values would redact ordinary words; such secrets are refused by design here. */
export const MIN_REDACT_LENGTH = 4;

const defaultVariants: VariantFn[] = [
  (value) => [JSON.stringify(value).slice(1, -1)],
  (value) => [encodeURIComponent(value)],
  (value) => [Buffer.from(value, 'utf8').toString('base64')],
];

export class SecretRedactor {
  private readonly byValue = new Map<string, RedactionEntry>();
  private readonly variants: VariantFn[] = [...defaultVariants];
  /** Cached, longest first, so a secret that contains another is replaced whole. */
  private sorted: RedactionEntry[] | null = null;

  register(value: string, name?: string): void {
    if (value.length < MIN_REDACT_LENGTH) return;
    for (const spelling of this.spellings(value)) {
      if (spelling.length < MIN_REDACT_LENGTH) continue;
      const existing = this.byValue.get(spelling);
      if (!existing || (!existing.name && name))
        this.byValue.set(spelling, { value: spelling, name });
    }
    this.sorted = null;
  }

  unregister(value: string): void {
    for (const spelling of this.spellings(value)) this.byValue.delete(spelling);
    this.sorted = null;
  }

  addVariant(fn: VariantFn): void {
    this.variants.push(fn);
    // Re-register known originals so the new spelling is covered too.
    const originals = [...this.byValue.values()];
    for (const entry of originals) this.register(entry.value, entry.name);
  }

  has(value: string): boolean {
    return this.byValue.has(value);
  }

  entries(): readonly RedactionEntry[] {
    if (!this.sorted) {
      this.sorted = [...this.byValue.values()].sort((a, b) => b.value.length - a.value.length);
    }
    return this.sorted;
  }

  redact(text: string): string {
    let out = text;
    for (const entry of this.entries()) {
      if (out.includes(entry.value)) {
        out = out.split(entry.value).join(entry.name ? `[REDACTED:${entry.name}]` : '***');
      }
    }
    return out;
  }

  clear(): void {
    this.byValue.clear();
    this.sorted = null;
  }

  private spellings(value: string): Set<string> {
    const all = new Set([value]);
    for (const fn of this.variants) for (const v of fn(value)) all.add(v);
    return all;
  }
}

/** The process-wide registry: what the CLI, logs and (later) #7's scanner redact against. */
export const secretRedactor = new SecretRedactor();

export function redact(text: string): string {
  return secretRedactor.redact(text);
}

/** Renders an error for humans with every known secret removed. */
export function redactError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return secretRedactor.redact(text);
}
