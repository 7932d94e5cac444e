/** Window size and position remembered (and kept on screen); the application menu's content. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appMenuTemplate, menuRoles } from '../../../src/main/core/desktop/app-menu.js';
import { DesktopSettingsStore } from '../../../src/main/core/desktop/settings.js';
import {
  boundsToSave,
  initialBounds,
  MAIN_WINDOW_SIZING as SIZING,
} from '../../../src/main/core/desktop/window-bounds.js';

const SCREEN = { x: 0, y: 0, width: 1920, height: 1040 };
const RIGHT = { x: 1920, y: 0, width: 1280, height: 1000 };

describe('window bounds', () => {
  it('first launch: the default size, placed by the system', () => {
    expect(initialBounds(null, [SCREEN], SIZING)).toEqual({
      width: 1100,
      height: 760,
      maximized: false,
    });
  });

  it('restores a saved position that is on a screen, as saved', () => {
    const saved = { x: 2000, y: 50, width: 900, height: 700, maximized: false };
    expect(initialBounds(saved, [SCREEN, RIGHT], SIZING)).toEqual(saved);
    expect(initialBounds({ ...saved, maximized: true }, [SCREEN, RIGHT], SIZING).maximized).toBe(
      true,
    );
  });

  it('a window partly off its screen is moved wholly onto it, and shrunk to fit', () => {
    expect(
      initialBounds(
        { x: 1500, y: -200, width: 900, height: 700, maximized: false },
        [SCREEN],
        SIZING,
      ),
    ).toEqual({ x: 1020, y: 0, width: 900, height: 700, maximized: false });
    expect(
      initialBounds(
        { x: 10, y: 10, width: 4000, height: 3000, maximized: false },
        [SCREEN],
        SIZING,
      ),
    ).toEqual({ x: 0, y: 0, width: 1920, height: 1040, maximized: false });
  });

  it('a position on a display that is gone: no position (the system centres it), size kept and fitted', () => {
    const onGoneMonitor = { x: 2500, y: 100, width: 1600, height: 1200, maximized: false };
    expect(initialBounds(onGoneMonitor, [SCREEN], SIZING)).toEqual({
      width: 1600,
      height: 1040,
      maximized: false,
    });
  });

  it('never smaller than the window minimum', () => {
    const tiny = { x: 0, y: 0, width: 10, height: 10, maximized: false };
    expect(initialBounds(tiny, [SCREEN], SIZING)).toMatchObject({ width: 640, height: 480 });
  });

  it('saves rounded normal bounds', () => {
    expect(boundsToSave({ x: 10.4, y: 20.6, width: 800.2, height: 600.7 }, true)).toEqual({
      x: 10,
      y: 21,
      width: 800,
      height: 601,
      maximized: true,
    });
  });

  describe('in desktop.json', () => {
    let dir = '';
    afterEach(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
      dir = '';
    });

    it('is remembered across launches; a malformed value is dropped, the other settings kept', async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-bounds-'));
      const file = path.join(dir, 'desktop.json');
      const store = new DesktopSettingsStore(file);
      await store.load();
      expect(store.get().window).toBeNull();
      const bounds = { x: 5, y: 6, width: 900, height: 700, maximized: false };
      await store.update({ window: bounds });
      const again = new DesktopSettingsStore(file);
      expect((await again.load()).window).toEqual(bounds);
      const saved = JSON.parse(await readFile(file, 'utf8'));
      await writeFile(
        file,
        JSON.stringify({ ...saved, startAtLogin: true, window: { x: 'left', width: -3 } }),
      );
      const third = new DesktopSettingsStore(file);
      const loaded = await third.load();
      expect(third.problem).toBeNull();
      expect(loaded.window).toBeNull();
      expect(loaded.startAtLogin).toBe(true);
      await expect(
        third.update({ window: { x: 0, y: 0, width: 0, height: 5, maximized: false } }),
      ).rejects.toThrow();
    });
  });
});

describe('application menu', () => {
  for (const platform of ['linux', 'win32', 'darwin'] as const) {
    it(`${platform}: Quit is reachable from the window; no Reload or DevTools when packaged`, () => {
      const production = menuRoles(appMenuTemplate({ platform, packaged: true }));
      expect(production).toContain('quit');
      expect(production).not.toContain('reload');
      expect(production).not.toContain('forceReload');
      expect(production).not.toContain('toggleDevTools');
      expect(production).toContain('copy');
      const development = menuRoles(appMenuTemplate({ platform, packaged: false }));
      expect(development).toEqual(expect.arrayContaining(['reload', 'toggleDevTools', 'quit']));
    });
  }

  it('names Quit after the app', () => {
    const template = appMenuTemplate({ platform: 'linux', packaged: true });
    expect(template[0]?.submenu?.find((entry) => entry.role === 'quit')?.label).toBe('Quit Pincer');
  });
});
