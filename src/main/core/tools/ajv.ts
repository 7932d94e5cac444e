/** ajv with the formats, for the argument check; loaded on demand by validate.ts. */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule;

/** `validateSchema` off only for schemas already known to be valid. */
export function makeAjv(validateSchema: boolean): Ajv {
  // strictNumbers: `strict: false` would otherwise let Infinity and NaN pass as numbers (a model
  // writing 8E4668883820750250 means Infinity, which JSON.stringify sends on as null).
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    strictNumbers: true,
    useDefaults: false,
    validateSchema,
  });
  addFormats(ajv);
  return ajv;
}
