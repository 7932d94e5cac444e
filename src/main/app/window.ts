import path from 'node:path';
import { BrowserWindow } from 'electron';
import { HARDENED_WEB_PREFERENCES } from '../core/desktop/web-guard.js';
import { rendererUrl } from './renderer-origin.js';

export interface MainWindowEvents {
  /** 'hide' keeps Pincer in the tray (the close is prevented); 'close' lets it close. */
  onClose: () => 'hide' | 'close';
  /** The window was hidden or minimized: approvals go to native surfaces. */
  onLeave: () => void;
}

/** Navigation, new windows and <webview> are guarded for every web contents in security.ts. */
export function createMainWindow(
  events: MainWindowEvents,
  options: { show: boolean },
): BrowserWindow {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'Pincer',
    backgroundColor: '#111318',
    webPreferences: {
      ...HARDENED_WEB_PREFERENCES,
      preload: path.join(import.meta.dirname, '../preload/index.cjs'),
    },
  });
  if (options.show) window.once('ready-to-show', () => window.show());
  window.on('close', (event) => {
    if (events.onClose() === 'hide') {
      event.preventDefault();
      window.hide();
    }
  });
  window.on('hide', events.onLeave);
  // Hidden or minimized, not merely unfocused: the card is still on screen then.
  window.on('minimize', events.onLeave);
  void window.loadURL(rendererUrl());
  return window;
}
