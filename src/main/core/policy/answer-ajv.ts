/** ajv with the formats a form may name; loaded on demand by input-form.ts. */
import { Ajv } from 'ajv';
import addFormatsModule, { type FormatName } from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule;

export function makeAnswerAjv(formats: readonly FormatName[]): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
  addFormats(ajv, [...formats]);
  return ajv;
}
