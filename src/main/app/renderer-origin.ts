import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** electron-vite sets this in development; packaged builds load the built HTML file. */
const devServerUrl = process.env.ELECTRON_RENDERER_URL;
const builtIndex = path.join(import.meta.dirname, '../renderer/index.html');

export function rendererEntry(): { kind: 'url'; url: string } | { kind: 'file'; file: string } {
  return devServerUrl ? { kind: 'url', url: devServerUrl } : { kind: 'file', file: builtIndex };
}

/** Only our own renderer may call IPC or be navigated to. */
export function isTrustedRendererUrl(url: string): boolean {
  if (devServerUrl) return new URL(url).origin === new URL(devServerUrl).origin;
  return url.split('#')[0] === pathToFileURL(builtIndex).href;
}
