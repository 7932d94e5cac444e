/** The desktop shell's own preferences. */
import { z } from 'zod';

/** Settings → Desktop: the shell's own preferences; `available` is false outside the desktop app. */
export const DesktopPreferencesViewSchema = z.object({
  available: z.boolean(),
  startAtLogin: z.boolean(),
  closeToTray: z.boolean(),
  /** Electron's accelerator spelling (`Control+Alt+Space`); null: no shortcut. */
  globalShortcut: z.string().nullable(),
  /** Why the shortcut is not active (taken by another application, turned off); null when it is. */
  shortcutProblem: z.string().nullable(),
});
export type DesktopPreferencesViewWire = z.infer<typeof DesktopPreferencesViewSchema>;
