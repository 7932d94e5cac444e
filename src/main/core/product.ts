import packageJson from '../../../package.json';

/** The product name; Electron derives its userData folder from it, so the CLI must agree. */
export const PRODUCT_NAME = 'Pincer';
export const PINCER_VERSION: string = packageJson.version;
