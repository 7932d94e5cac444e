/**
 * The one confinement for file access on workspace content: path decisions for the file tools
 * (confine) and the main process's own reads and writes (readInside, appendInside).
 */
export * from './confine.js';
export * from './errors.js';
export * from './files.js';
