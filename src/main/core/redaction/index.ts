/**
 * Redaction, one owner: the agent's `Redactor` (known secret values in their common encodings,
 * and credential patterns), which every text leaving the agent passes through.
 */
export { SECRET_PATTERNS } from './patterns.js';
export {
  MIN_REDACT_LENGTH,
  type Redacted,
  type RedactingStream,
  Redactor,
} from './redactor.js';
