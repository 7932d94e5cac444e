import path from 'node:path';
import { BrowserWindow } from 'electron';
import {
  boundsToSave,
  HARDENED_WEB_PREFERENCES,
  type InitialBounds,
  MAIN_WINDOW_SIZING,
  type WindowBounds,
} from '../core/desktop/index.js';
import { rendererUrl } from './renderer-origin.js';

export interface MainWindowEvents {
  /** 'hide' keeps Pincer in the tray (the close is prevented); 'close' lets it close. */
  onClose: () => 'hide' | 'close';
  /** The window was hidden or minimized: approvals go to native surfaces. */
  onLeave: () => void;
  /** The window was moved, resized or closed: remember where it is. */
  onBounds: (bounds: WindowBounds) => void;
}

/** Navigation, new windows and <webview> are guarded for every web contents in security.ts. */
export function createMainWindow(
  events: MainWindowEvents,
  options: { show: boolean; bounds: InitialBounds },
): BrowserWindow {
  const { maximized, ...bounds } = options.bounds;
  const window = new BrowserWindow({
    ...bounds,
    minWidth: MAIN_WINDOW_SIZING.minWidth,
    minHeight: MAIN_WINDOW_SIZING.minHeight,
    show: false,
    title: 'Pincer',
    backgroundColor: '#111318',
    webPreferences: {
      ...HARDENED_WEB_PREFERENCES,
      preload: path.join(import.meta.dirname, '../preload/index.cjs'),
    },
  });
  if (maximized) window.maximize();
  if (options.show) window.once('ready-to-show', () => window.show());
  const saveBounds = () => {
    if (!window.isDestroyed() && !window.isMinimized())
      events.onBounds(boundsToSave(window.getNormalBounds(), window.isMaximized()));
  };
  // 'moved' and 'resized' come once a move or resize ends, not on every pixel.
  window.on('moved', saveBounds);
  window.on('resized', saveBounds);
  window.on('close', (event) => {
    saveBounds();
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
