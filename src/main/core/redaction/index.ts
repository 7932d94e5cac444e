/**
 * Redaction, one owner: the agent's `Redactor` (known secret values in their common encodings,
 * and credential patterns), which every text leaving the agent passes through.
 */

export { type RedactingStream, Redactor } from './redactor.js';
