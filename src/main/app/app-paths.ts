import path from 'node:path';
import { app } from 'electron';

/**
 * The shipped resources/ folder (manifest, templates, tray icons). It lives inside the app
 * (app.asar when packaged, the repository in development), next to models/catalog.json: the
 * layout the core's `appDir` expects.
 */
export function appResource(...parts: string[]): string {
  return path.join(app.getAppPath(), 'resources', ...parts);
}
