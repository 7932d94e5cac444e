/** ajv with the formats, for the argument check; loaded on demand by validate.ts. */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule;

/** `validateSchema` off only for schemas already known to be valid. */
export function makeAjv(validateSchema: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, validateSchema });
  addFormats(ajv);
  return ajv;
}
