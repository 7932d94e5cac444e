import os from 'node:os';
import path from 'node:path';
import { PRODUCT_NAME } from './product.js';

export interface PathEnv {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  homedir: string;
}

const currentEnv = (): PathEnv => ({
  platform: process.platform,
  env: process.env,
  homedir: os.homedir(),
});

/**
 * The per-user data directory shared by the desktop shell and the CLI.
 *
 * `PINCER_HOME` wins. Otherwise this is exactly what Electron's `app.getPath('userData')`
 * returns for an app named "Pincer" (appData + product name), so a chat started in the tray app
 * is visible to `pincer chat` and vice versa.
 */
export function resolveDataDir(pathEnv: PathEnv = currentEnv()): string {
  const paths = pathEnv.platform === 'win32' ? path.win32 : path.posix;
  const override = pathEnv.env.PINCER_HOME?.trim();
  if (override) return paths.resolve(override);
  return paths.join(appDataDir(pathEnv), PRODUCT_NAME);
}

/** Electron's `appData`: the per-user application data root of the platform. */
function appDataDir({ env, platform, homedir }: PathEnv): string {
  switch (platform) {
    case 'win32':
      return env.APPDATA?.trim() || path.win32.join(homedir, 'AppData', 'Roaming');
    case 'darwin':
      return path.posix.join(homedir, 'Library', 'Application Support');
    default:
      return env.XDG_CONFIG_HOME?.trim() || path.posix.join(homedir, '.config');
  }
}

/** Where downloaded GGUF models live inside the data directory. */
export function modelsDir(dataDir: string): string {
  return path.join(dataDir, 'models');
}
