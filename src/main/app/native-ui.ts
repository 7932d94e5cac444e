import { type BrowserWindow, dialog, Notification, shell } from 'electron';
import type { ApprovalNotice } from '../core/desktop/index.js';
import {
  externalLinkPrompt,
  type NativeApprovalUi,
  openExternalSafely,
  windowAttended,
} from '../core/desktop/index.js';
import { appResource } from './app-paths.js';

/** OS notifications; false where the system shows none. */
export function notify(notice: ApprovalNotice, onClick?: () => void): boolean {
  if (!Notification.isSupported()) return false;
  const notification = new Notification({
    title: notice.title,
    body: notice.body,
    icon: appResource('tray', 'tray-needs-approval.png'),
  });
  if (onClick) notification.on('click', onClick);
  notification.show();
  return true;
}

/**
 * Native approval dialogs. With the window hidden or minimized the box is app-modal; otherwise it is attached
 * to the window. The router's signal closes the box when another surface answered first.
 */
export function nativeApprovalUi(options: {
  window: () => BrowserWindow | null;
}): NativeApprovalUi {
  return {
    // Clicking the notification opens the dialog (the router's onClick), not the window.
    notify: (notice, onClick) => notify(notice, onClick),
    ask: async (model, signal) => {
      const box = {
        type: 'question' as const,
        title: model.title,
        message: model.message,
        detail: model.detail,
        buttons: model.buttons,
        defaultId: model.defaultId,
        cancelId: model.cancelId,
        noLink: true,
        signal,
      };
      const parent = options.window();
      // A box attached to a minimized window would stay out of sight: app-modal then.
      const result =
        parent && windowAttended(parent)
          ? await dialog.showMessageBox(parent, box)
          : await dialog.showMessageBox(box);
      return result.response;
    },
  };
}

/** shell.openExternal behind the http(s) check and a confirmation naming the whole URL. */
export function openLinkWithConfirmation(url: string, parent: () => BrowserWindow | null): void {
  void openExternalSafely(url, {
    confirm: async (target) => {
      const prompt = externalLinkPrompt(target);
      const box = {
        type: 'question' as const,
        title: 'Pincer',
        message: prompt.message,
        detail: prompt.detail,
        buttons: ['Open in browser', 'Cancel'],
        defaultId: 1,
        cancelId: 1,
        noLink: true,
      };
      const window = parent();
      const { response } =
        window && !window.isDestroyed()
          ? await dialog.showMessageBox(window, box)
          : await dialog.showMessageBox(box);
      return response === 0;
    },
    open: (target) => shell.openExternal(target),
    onRefused: (raw, why) =>
      console.warn(`[pincer] link not opened (${why}): ${raw.slice(0, 200)}`),
  });
}
