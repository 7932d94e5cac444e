import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CloseToTray } from '../../../src/main/core/desktop/close-to-tray.js';
import {
  DEFAULT_DESKTOP_SETTINGS,
  DesktopSettingsStore,
} from '../../../src/main/core/desktop/settings.js';
import {
  claimSingleInstance,
  startsHidden,
  summonWindow,
} from '../../../src/main/core/desktop/window-control.js';
import { FakeApp, FakeWindow } from './fake-electron.js';

let scratch = '';
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = '';
});
async function settingsStore() {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-desktop-'));
  return new DesktopSettingsStore(path.join(scratch, 'desktop.json'));
}

describe('close to tray', () => {
  it('hides instead of closing; the first close notifies once, remembered across launches', async () => {
    const store = await settingsStore();
    await store.load();
    const window = new FakeWindow();
    const closeWith = (policy: CloseToTray) => {
      const decision = policy.onClose();
      if (decision.action === 'hide') window.hide();
      return decision;
    };
    const policy = () =>
      new CloseToTray({
        quitting: () => false,
        trayAvailable: () => true,
        noticeShown: () => store.get().closeToTrayNoticeShown,
        rememberNotice: async () => {
          await store.update({ closeToTrayNoticeShown: true });
        },
      });
    const first = policy();
    expect(closeWith(first)).toEqual({ action: 'hide', notice: true });
    expect(window.visible).toBe(false);
    expect(closeWith(first)).toEqual({ action: 'hide', notice: false });
    // Next launch: a fresh store reads the file. The notice is remembered in the background
    // (closing never waits for a disk write), so wait for the write rather than a fixed time.
    const again = new DesktopSettingsStore(store.file);
    await vi.waitFor(
      async () => {
        await again.load();
        expect(again.get().closeToTrayNoticeShown).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );
    const secondLaunch = new CloseToTray({
      quitting: () => false,
      trayAvailable: () => true,
      noticeShown: () => again.get().closeToTrayNoticeShown,
      rememberNotice: async () => {},
    });
    expect(secondLaunch.onClose()).toEqual({ action: 'hide', notice: false });
  });

  it('really closes while quitting', () => {
    const policy = new CloseToTray({
      quitting: () => true,
      trayAvailable: () => true,
      noticeShown: () => false,
      rememberNotice: async () => {},
    });
    expect(policy.onClose()).toEqual({ action: 'close' });
  });

  it('quits instead of hiding where no tray exists to bring the window back; no notice', () => {
    let tray = false;
    const remembered: string[] = [];
    const policy = new CloseToTray({
      quitting: () => false,
      trayAvailable: () => tray,
      noticeShown: () => false,
      rememberNotice: async () => {
        remembered.push('notice');
      },
    });
    expect(policy.onClose()).toEqual({ action: 'quit' });
    expect(remembered).toEqual([]);
    // Asked at each close: a tray that appears later brings close-to-tray back.
    tray = true;
    expect(policy.onClose()).toEqual({ action: 'hide', notice: true });
    expect(remembered).toEqual(['notice']);
  });

  it('a failed save is reported, and the window still hides', async () => {
    const errors: unknown[] = [];
    const policy = new CloseToTray({
      quitting: () => false,
      trayAvailable: () => true,
      noticeShown: () => false,
      rememberNotice: () => Promise.reject(new Error('read-only disk')),
      onError: (error) => errors.push(error),
    });
    expect(policy.onClose()).toEqual({ action: 'hide', notice: true });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors).toEqual([new Error('read-only disk')]);
  });
});

describe('desktop settings', () => {
  it('defaults: start at login off, a summon shortcut, no update feed', async () => {
    const store = await settingsStore();
    expect(await store.load()).toEqual(DEFAULT_DESKTOP_SETTINGS);
    expect(DEFAULT_DESKTOP_SETTINGS).toMatchObject({
      startAtLogin: false,
      updateFeedUrl: null,
      closeToTrayNoticeShown: false,
    });
  });

  it('refuses a bad change as a whole: nothing changes in memory or on disk', async () => {
    const store = await settingsStore();
    await store.update({ startAtLogin: true });
    const before = await readFile(store.file, 'utf8');
    await expect(
      store.update({ closeToTrayNoticeShown: true, updateFeedUrl: 'http://insecure.example/feed' }),
    ).rejects.toThrow();
    expect(store.get().closeToTrayNoticeShown).toBe(false);
    expect(await readFile(store.file, 'utf8')).toBe(before);
    await store.update({ updateFeedUrl: 'https://updates.example/pincer' });
    expect(store.get().updateFeedUrl).toBe('https://updates.example/pincer');
  });

  it('an unreadable file: defaults with a clear problem, and the file is kept aside before saving', async () => {
    const store = await settingsStore();
    await writeFile(store.file, '{ "startAtLogin": tru');
    expect(await store.load()).toEqual(DEFAULT_DESKTOP_SETTINGS);
    expect(store.problem).toMatch(/desktop\.json: not JSON/);
    await store.update({ startAtLogin: true });
    const { readdir } = await import('node:fs/promises');
    const names = await readdir(scratch);
    const aside = names.find((name) => name.startsWith('desktop.json.unreadable-'));
    expect(aside).toBeDefined();
    expect(await readFile(path.join(scratch, aside as string), 'utf8')).toBe(
      '{ "startAtLogin": tru',
    );
  });

  it('a wrong type is named in the problem', async () => {
    const store = await settingsStore();
    await writeFile(store.file, JSON.stringify({ startAtLogin: 'yes' }));
    await store.load();
    expect(store.problem).toMatch(/startAtLogin/);
  });
});

describe('single instance and summoning', () => {
  it('the first instance takes the lock; a second launch summons its window', () => {
    const app = new FakeApp(false);
    const window = new FakeWindow();
    window.hide();
    window.minimized = true;
    const slot = { current: window, create: () => new FakeWindow() };
    expect(claimSingleInstance(app, () => summonWindow(slot))).toBe(true);
    app.launchAnother(['/opt/Pincer/pincer']);
    expect(window.calls).toEqual(['hide', 'restore', 'show', 'focus']);
    expect(app.quitCalls).toBe(0);
  });

  it('a second instance quits at once and reports it must not start', () => {
    const app = new FakeApp(true);
    let summoned = 0;
    expect(claimSingleInstance(app, () => summoned++)).toBe(false);
    expect(app.quitCalls).toBe(1);
    app.launchAnother([]);
    expect(summoned).toBe(0);
  });

  it('summoning a destroyed or never-created window creates a new one', () => {
    const created: FakeWindow[] = [];
    const slot = {
      current: null as FakeWindow | null,
      create: () => {
        const window = new FakeWindow();
        created.push(window);
        return window;
      },
    };
    const first = summonWindow(slot);
    expect(summonWindow(slot)).toBe(first);
    first.destroyed = true;
    expect(summonWindow(slot)).not.toBe(first);
    expect(created).toHaveLength(2);
  });

  it('starts hidden in the tray when launched at login or with --hidden', () => {
    expect(startsHidden(['/usr/bin/pincer'])).toBe(false);
    expect(startsHidden(['/usr/bin/pincer', '--hidden'])).toBe(true);
    expect(startsHidden([], true)).toBe(true);
  });
});
