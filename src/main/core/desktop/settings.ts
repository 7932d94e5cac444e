/**
 * The desktop shell's own preferences (close-to-tray notice, start at login, global shortcut,
 * update feed, the window's size and position), one small JSON file in the data directory shared with the CLI. A file that does
 * not parse is never overwritten: it is set aside next to the original before the first save.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../secrets/index.js';
import { WindowBoundsSchema } from './window-bounds.js';

/**
 * The shortcut that summons the window from anywhere, by platform. Cmd/Ctrl+Shift+Space was the
 * first choice and is taken by editors (VS Code's parameter hints, JetBrains' smart completion),
 * Cmd+Alt+Space is Finder search on macOS; Option+Space there and Ctrl+Alt+Space elsewhere are
 * free by default (the log says so when another app owns one).
 */
export function defaultGlobalShortcut(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? 'Alt+Space' : 'Control+Alt+Space';
}

export const DEFAULT_GLOBAL_SHORTCUT = defaultGlobalShortcut();

const SettingsSchema = z.object({
  /** The "Pincer keeps running in the tray" notification was shown (it is shown once). */
  closeToTrayNoticeShown: z.boolean().default(false),
  /** Launch at login, hidden in the tray. Off until the user turns it on. */
  startAtLogin: z.boolean().default(false),
  /** Closing the window keeps Pincer in the tray; off: closing the window quits. */
  closeToTray: z.boolean().default(true),
  /** Accelerator that shows the window; null turns the shortcut off. */
  globalShortcut: z.string().min(1).max(100).nullable().default(DEFAULT_GLOBAL_SHORTCUT),
  /** A generic electron-updater feed (https). Null: updates are off. */
  updateFeedUrl: z
    .url({ protocol: /^https$/ })
    .nullable()
    .default(null),
  /** The window's last size and position. */
  window: WindowBoundsSchema.nullable().default(null),
});

/** Reading the file: a malformed window position is dropped, not the whole file with it. */
const FileSchema = SettingsSchema.extend({
  window: SettingsSchema.shape.window.catch(null),
});

export type DesktopSettings = z.infer<typeof SettingsSchema>;

export const DEFAULT_DESKTOP_SETTINGS: DesktopSettings = SettingsSchema.parse({});

export function desktopSettingsPath(dataDir: string): string {
  return path.join(dataDir, 'desktop.json');
}

export class DesktopSettingsStore {
  private current: DesktopSettings = { ...DEFAULT_DESKTOP_SETTINGS };
  /** Why the file on disk was not used, if it was not. */
  problem: string | null = null;
  private unreadable = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  get(): DesktopSettings {
    return { ...this.current };
  }

  async load(): Promise<DesktopSettings> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.get();
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      return this.reject(`not JSON (${(error as Error).message})`);
    }
    const parsed = FileSchema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      return this.reject(issues);
    }
    this.current = parsed.data;
    return this.get();
  }

  /**
   * Validates the change as a whole; on error nothing changes, in memory or on disk. Updates run
   * one after another, each over the last one's result: two at once (the window's position and
   * the close notice) would otherwise each write the other's change away.
   */
  update(patch: Partial<DesktopSettings>): Promise<DesktopSettings> {
    const run = this.queue.then(() => this.apply(patch));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async apply(patch: Partial<DesktopSettings>): Promise<DesktopSettings> {
    const next = SettingsSchema.parse({ ...this.current, ...patch });
    if (this.unreadable) {
      await fs.rename(this.file, `${this.file}.unreadable-${Date.now()}`).catch((error) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
      this.unreadable = false;
    }
    await writeFileAtomic(this.file, Buffer.from(`${JSON.stringify(next, null, 2)}\n`), {
      mode: 0o644,
    });
    this.current = next;
    return this.get();
  }

  private reject(why: string): DesktopSettings {
    this.problem = `${this.file}: ${why}; using defaults (the file is kept aside on the next save)`;
    this.unreadable = true;
    return this.get();
  }
}
