import path from 'node:path';
import { protocol } from 'electron';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  APP_SCHEME_PRIVILEGES,
  isAppUrl,
  serveRendererRequest,
} from '../core/desktop/index.js';

/** electron-vite sets this in development; packaged builds serve the built renderer folder. */
const devServerUrl = process.env.ELECTRON_RENDERER_URL;
export const builtRendererDir = path.join(import.meta.dirname, '../renderer');

/** The page the main window loads: the dev server, or the built renderer on app://pincer/. */
export function rendererUrl(): string {
  return devServerUrl ?? APP_ENTRY_URL;
}

/** Only our own renderer may call IPC or be navigated to. */
export function isTrustedRendererUrl(url: string): boolean {
  if (devServerUrl) return new URL(url).origin === new URL(devServerUrl).origin;
  return isAppUrl(url);
}

/** Must run before the app is ready: Chromium fixes its schemes' privileges at start. */
export function registerRendererScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } },
  ]);
}

/** After ready: answers app://pincer/ from the built renderer folder (nothing in development). */
export function serveBuiltRenderer(root = builtRendererDir): void {
  if (devServerUrl) return;
  protocol.handle(APP_SCHEME, (request) =>
    serveRendererRequest(root, { url: request.url, method: request.method }),
  );
}
