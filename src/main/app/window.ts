import path from 'node:path';
import { BrowserWindow } from 'electron';
import { isTrustedRendererUrl, rendererEntry } from './renderer-origin.js';

export function createMainWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'Pincer',
    backgroundColor: '#111318',
    webPreferences: {
      preload: path.join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  // The renderer never opens windows or navigates away from the app.
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event, url) => {
    if (!isTrustedRendererUrl(url)) event.preventDefault();
  });
  const entry = rendererEntry();
  if (entry.kind === 'url') void window.loadURL(entry.url);
  else void window.loadFile(entry.file);
  return window;
}
