/**
 * Credentials people paste most, found by their shape (an AWS key id, a GitHub token, a private
 * key block, a password assigned in a config line), for text that holds a secret this agent
 * never stored.
 */

interface SecretPattern {
  id: string;
  regex: RegExp;
  /** Redact only this capture group (an assignment's value, not its name). */
  group?: number;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { id: 'aws-access-key', regex: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  {
    id: 'aws-secret-key',
    regex: /\baws.{0,20}?(?:secret|key).{0,5}?['"=:\s]+([A-Za-z0-9/+=]{40})\b/gi,
    group: 1,
  },
  { id: 'github-token', regex: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g },
  { id: 'github-pat', regex: /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g },
  { id: 'gitlab-token', regex: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { id: 'anthropic-key', regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: 'openai-key', regex: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  { id: 'google-api-key', regex: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'huggingface-token', regex: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { id: 'slack-token', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { id: 'slack-webhook', regex: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g },
  { id: 'stripe-key', regex: /\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{24,}\b/g },
  { id: 'twilio-key', regex: /\bSK[0-9a-fA-F]{32}\b/g },
  { id: 'sendgrid-key', regex: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { id: 'npm-token', regex: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: 'pypi-token', regex: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { id: 'discord-token', regex: /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,38}\b/g },
  { id: 'telegram-bot-token', regex: /\b\d{8,10}:[A-Za-z0-9_-]{35}\b/g },
  { id: 'azure-storage-key', regex: /AccountKey=([A-Za-z0-9+/=]{60,})/g, group: 1 },
  {
    id: 'private-key',
    regex: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )*PRIVATE KEY-----/g,
  },
  { id: 'jwt', regex: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  {
    id: 'bearer-header',
    regex:
      /\b(?:authorization|proxy-authorization)\s*:\s*(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{8,})/gi,
    group: 1,
  },
  { id: 'url-credentials', regex: /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:([^/\s:@]{3,})@/gi, group: 1 },
  {
    id: 'secret-assignment',
    regex:
      /\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\b\s*[=:]\s*['"]?([^\s'",;]{8,})/gi,
    group: 1,
  },
];

/**
 * Some pattern, case-insensitively (so a superset of each): one scan that rules out all of them
 * for the text that holds none, nearly every string an event carries.
 */
const ANY_SECRET_PATTERN = new RegExp(
  SECRET_PATTERNS.map((pattern) => `(?:${pattern.regex.source})`).join('|'),
  'i',
);

/**
 * Random-looking strings only: `password = changeme` or `token: placeholder` is prose, `x9F2...`
 * is a credential. At least two character classes and about three bits per character.
 */
function highEntropy(text: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((c) => c.test(text)).length;
  if (classes < 2) return false;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits >= 3;
}

const PATH_VALUE = /^(?:~|\.{1,2}|[A-Za-z]:)?[/\\][\w.@%+~:/\\-]*$/;

/**
 * A path says where something is (`PWD=/home/ada/src`, `secret: /run/secrets/db`): it is not
 * the credential itself, however random its directory names look (temp dirs do). One random
 * segment after a slash (`/x9F2kLmQ7z`) still reads as a credential.
 */
function isPath(value: string): boolean {
  if (!PATH_VALUE.test(value)) return false;
  const segments = value.split(/[/\\]/).filter(Boolean);
  return segments.length !== 1 || !highEntropy(segments[0] as string);
}

/** What an assignment to a secret-sounding name must hold to be redacted as one. */
function inlineCredential(value: string): boolean {
  return !isPath(value) && highEntropy(value);
}

/** Replaces what the patterns find with `[REDACTED:<pattern id>]`; returns their ids. */
export function redactPatterns(text: string): { text: string; found: string[] } {
  const found: string[] = [];
  if (!ANY_SECRET_PATTERN.test(text)) return { text, found };
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern.regex, (match, ...groups: unknown[]) => {
      const value = pattern.group ? (groups[pattern.group - 1] as string | undefined) : match;
      // Already redacted (a known secret, or an earlier pattern): leave the marker alone.
      if (!value || value.startsWith('[REDACTED')) return match;
      if (pattern.id === 'secret-assignment' && !inlineCredential(value)) return match;
      found.push(pattern.id);
      return pattern.group
        ? match.replace(value, `[REDACTED:${pattern.id}]`)
        : `[REDACTED:${pattern.id}]`;
    });
  }
  return { text: out, found };
}
