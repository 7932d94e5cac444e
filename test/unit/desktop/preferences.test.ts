/**
 * Settings → Desktop over the real settings file: a change takes effect, then is kept; a
 * shortcut another application owns or a malformed one is refused with the reason and the old
 * shortcut stays registered and saved; the login item follows the checkbox.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloseToTray } from '../../../src/main/core/desktop/close-to-tray.js';
import { DesktopPreferences } from '../../../src/main/core/desktop/preferences.js';
import {
  DEFAULT_GLOBAL_SHORTCUT,
  DesktopSettingsStore,
} from '../../../src/main/core/desktop/settings.js';
import { acceleratorOf, describeAccelerator } from '../../../src/renderer/src/lib/accelerator.js';
import { FakeGlobalShortcut } from './fake-electron.js';

let scratch = '';
let settings: DesktopSettingsStore;
let shortcuts: FakeGlobalShortcut;
let loginItem: boolean[];
let summoned = 0;
let changes = 0;
let prefs: DesktopPreferences;

beforeEach(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-desktop-prefs-'));
  settings = new DesktopSettingsStore(path.join(scratch, 'desktop.json'));
  await settings.load();
  shortcuts = new FakeGlobalShortcut(['Control+Shift+K']);
  loginItem = [];
  summoned = 0;
  changes = 0;
  prefs = new DesktopPreferences({
    settings,
    shortcuts,
    summon: () => summoned++,
    applyStartAtLogin: async (enabled) => {
      loginItem.push(enabled);
    },
    onChange: () => changes++,
  });
  prefs.start();
});
afterEach(() => rm(scratch, { recursive: true, force: true }));

const saved = async () => JSON.parse(await readFile(settings.file, 'utf8'));

describe('desktop preferences', () => {
  it('registers the saved shortcut at start and reports it working', () => {
    expect([...shortcuts.registered.keys()]).toEqual([DEFAULT_GLOBAL_SHORTCUT]);
    expect(prefs.view()).toEqual({
      startAtLogin: false,
      closeToTray: true,
      globalShortcut: DEFAULT_GLOBAL_SHORTCUT,
      shortcutProblem: null,
    });
  });

  it('a new shortcut replaces the old one, is saved, and summons', async () => {
    const view = await prefs.update({ globalShortcut: 'Alt+Shift+P' });
    expect(view).toMatchObject({ globalShortcut: 'Alt+Shift+P', shortcutProblem: null });
    expect([...shortcuts.registered.keys()]).toEqual(['Alt+Shift+P']);
    expect((await saved()).globalShortcut).toBe('Alt+Shift+P');
    shortcuts.press('Alt+Shift+P');
    expect(summoned).toBe(1);
    expect(changes).toBe(1);
  });

  it('a shortcut another app owns is refused; the old one stays registered and saved', async () => {
    await expect(prefs.update({ globalShortcut: 'Control+Shift+K' })).rejects.toThrow(
      /taken by another application/,
    );
    expect([...shortcuts.registered.keys()]).toEqual([DEFAULT_GLOBAL_SHORTCUT]);
    expect(prefs.view()).toMatchObject({
      globalShortcut: DEFAULT_GLOBAL_SHORTCUT,
      shortcutProblem: null,
    });
    await expect(prefs.update({ globalShortcut: 'Shift' })).rejects.toThrow(/no key/);
    await expect(prefs.update({ globalShortcut: 'P' })).rejects.toThrow(/needs a modifier/);
    expect([...shortcuts.registered.keys()]).toEqual([DEFAULT_GLOBAL_SHORTCUT]);
    expect(changes).toBe(0);
  });

  it('turning the shortcut off unregisters it and says so', async () => {
    const view = await prefs.update({ globalShortcut: null });
    expect(shortcuts.registered.size).toBe(0);
    expect(view).toMatchObject({ globalShortcut: null, shortcutProblem: 'turned off in settings' });
    expect((await saved()).globalShortcut).toBeNull();
  });

  it('start at login reaches the login item before it is saved; close to tray is kept', async () => {
    await prefs.update({ startAtLogin: true, closeToTray: false });
    expect(loginItem).toEqual([true]);
    expect(await saved()).toMatchObject({ startAtLogin: true, closeToTray: false });
    // The same value again asks nothing of the OS.
    await prefs.update({ startAtLogin: true });
    expect(loginItem).toEqual([true]);
  });

  it('with close to tray off, closing the window quits even though a tray exists', async () => {
    const close = new CloseToTray({
      quitting: () => false,
      trayAvailable: () => true,
      enabled: () => settings.get().closeToTray,
      noticeShown: () => true,
      rememberNotice: async () => {},
    });
    expect(close.onClose()).toEqual({ action: 'hide', notice: false });
    await prefs.update({ closeToTray: false });
    expect(close.onClose()).toEqual({ action: 'quit' });
  });
});

describe('recording a shortcut', () => {
  const press = (
    code: string,
    mods: Partial<Record<'ctrl' | 'alt' | 'shift' | 'meta', boolean>>,
  ) => ({
    code,
    ctrlKey: mods.ctrl ?? false,
    altKey: mods.alt ?? false,
    shiftKey: mods.shift ?? false,
    metaKey: mods.meta ?? false,
  });

  it('names the physical key with its modifiers in Electron order', () => {
    expect(acceleratorOf(press('Space', { ctrl: true, alt: true }), false)).toBe(
      'Control+Alt+Space',
    );
    expect(acceleratorOf(press('KeyP', { meta: true, shift: true }), true)).toBe('Command+Shift+P');
    expect(acceleratorOf(press('KeyP', { meta: true }), false)).toBe('Super+P');
    expect(acceleratorOf(press('Digit5', { alt: true }), false)).toBe('Alt+5');
    expect(acceleratorOf(press('F12', {}), false)).toBe('F12');
    expect(acceleratorOf(press('ArrowUp', { ctrl: true }), false)).toBe('Control+Up');
  });

  it('waits while only modifiers are down, and for keys Electron cannot name', () => {
    expect(acceleratorOf(press('ShiftLeft', { shift: true }), false)).toBeUndefined();
    expect(acceleratorOf(press('IntlRo', { ctrl: true }), false)).toBeUndefined();
  });

  it('reads as the platform writes it', () => {
    expect(describeAccelerator('Control+Alt+Space', false)).toBe('Ctrl + Alt + Space');
    expect(describeAccelerator('Alt+Space', true)).toBe('⌥Space');
    expect(describeAccelerator('Command+Shift+P', true)).toBe('⌘⇧P');
  });
});
