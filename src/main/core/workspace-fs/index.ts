/**
 * The one confinement for file access on workspace content: path decisions for the file tools
 * (confine) and the main process's own reads and writes (readInside, appendInside).
 */
export { confine, realPathOf, refuseHardLinks, shown } from './confine.js';
export { ConfinementError } from './errors.js';
export {
  appendInside,
  createInside,
  readInside,
  readTextInside,
  readTextsInside,
  type TextRead,
} from './files.js';
