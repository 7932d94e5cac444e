import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  autostartEntry,
  autostartFile,
  linuxAutostartEnabled,
  loginItemSettings,
  setLinuxAutostart,
} from '../../../src/main/core/desktop/login-item.js';
import {
  DEFAULT_GLOBAL_SHORTCUT,
  defaultGlobalShortcut,
} from '../../../src/main/core/desktop/settings.js';
import {
  checkAccelerator,
  registerSummonShortcut,
} from '../../../src/main/core/desktop/shortcut.js';
import { planUpdates } from '../../../src/main/core/desktop/updates.js';
import { FakeGlobalShortcut } from './fake-electron.js';

let scratch = '';
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = '';
});

describe('start at login', () => {
  it('macOS/Windows: login item settings start hidden when on, nothing when off', () => {
    expect(loginItemSettings(true)).toEqual({ openAtLogin: true, args: ['--hidden'] });
    expect(loginItemSettings(false)).toEqual({ openAtLogin: false, args: [] });
  });

  it('Linux: writes and removes an XDG autostart entry that starts hidden', async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'pincer-autostart-'));
    const file = autostartFile({ XDG_CONFIG_HOME: scratch }, '/home/nobody');
    expect(file).toBe(path.join(scratch, 'autostart', 'pincer.desktop'));
    expect(await linuxAutostartEnabled(file)).toBe(false);
    await setLinuxAutostart(true, { file, executable: '/opt/My Apps/Pincer.AppImage' });
    const text = await readFile(file, 'utf8');
    expect(text).toContain('Exec="/opt/My Apps/Pincer.AppImage" --hidden');
    expect(await linuxAutostartEnabled(file)).toBe(true);
    await setLinuxAutostart(false, { file, executable: '' });
    expect(await linuxAutostartEnabled(file)).toBe(false);
    await setLinuxAutostart(false, { file, executable: '' }); // already off: fine
  });

  it('defaults to ~/.config/autostart and leaves plain paths unquoted', () => {
    expect(autostartFile({}, '/home/ada')).toBe('/home/ada/.config/autostart/pincer.desktop');
    expect(autostartEntry('/usr/bin/pincer')).toContain('Exec=/usr/bin/pincer --hidden');
  });
});

describe('global shortcut', () => {
  it('defaults to a combination editors and the OS leave free', () => {
    expect(defaultGlobalShortcut('darwin')).toBe('Alt+Space');
    expect(defaultGlobalShortcut('linux')).toBe('Control+Alt+Space');
    expect(defaultGlobalShortcut('win32')).toBe('Control+Alt+Space');
    // Taken: VS Code parameter hints / JetBrains smart completion, and macOS Finder search.
    for (const platform of ['darwin', 'linux', 'win32'] as const)
      expect(defaultGlobalShortcut(platform)).not.toMatch(
        /^(CommandOrControl|Control)\+Shift\+Space$|^Command\+Alt\+Space$/,
      );
  });

  it('registers the default and summons with it', () => {
    const registry = new FakeGlobalShortcut();
    let summoned = 0;
    expect(registerSummonShortcut(registry, DEFAULT_GLOBAL_SHORTCUT, () => summoned++)).toEqual({
      registered: true,
      accelerator: DEFAULT_GLOBAL_SHORTCUT,
    });
    registry.press(DEFAULT_GLOBAL_SHORTCUT);
    expect(summoned).toBe(1);
  });

  it('says why when the accelerator is taken, malformed or turned off', () => {
    const registry = new FakeGlobalShortcut(['Alt+Space']);
    expect(registerSummonShortcut(registry, 'Alt+Space', () => {})).toMatchObject({
      registered: false,
      reason: 'Alt+Space is taken by another application',
    });
    expect(registerSummonShortcut(registry, 'P', () => {})).toMatchObject({
      registered: false,
      reason: expect.stringMatching(/needs a modifier/),
    });
    expect(registerSummonShortcut(registry, null, () => {})).toMatchObject({
      registered: false,
      reason: 'turned off in settings',
    });
    expect(registry.registered.size).toBe(0);
  });

  it('checks accelerators', () => {
    expect(checkAccelerator('CmdOrCtrl+Shift+P')).toBeNull();
    expect(checkAccelerator('Ctrl+Shift')).toMatch(/no key/);
    expect(checkAccelerator('Hyper+P')).toMatch(/unknown modifier "Hyper"/);
  });
});

describe('auto-update', () => {
  const packaged = { isPackaged: true, settingsFeed: null, env: {} };
  it('is off unless a feed is configured, and always off in dev runs', () => {
    expect(planUpdates(packaged)).toEqual({ enabled: false, reason: 'no update feed configured' });
    expect(
      planUpdates({ ...packaged, isPackaged: false, settingsFeed: 'https://u.example/' }),
    ).toEqual({ enabled: false, reason: 'not a packaged build' });
  });

  it('uses the settings feed, else PINCER_UPDATE_FEED; https only', () => {
    expect(
      planUpdates({ ...packaged, env: { PINCER_UPDATE_FEED: 'https://u.example/p/' } }),
    ).toEqual({ enabled: true, feed: { provider: 'generic', url: 'https://u.example/p/' } });
    expect(
      planUpdates({
        ...packaged,
        settingsFeed: 'https://s.example/',
        env: { PINCER_UPDATE_FEED: 'https://u.example/' },
      }),
    ).toMatchObject({ enabled: true, feed: { url: 'https://s.example/' } });
    expect(planUpdates({ ...packaged, env: { PINCER_UPDATE_FEED: 'http://u.example/' } })).toEqual({
      enabled: false,
      reason: 'update feed must be https, got http:',
    });
    expect(planUpdates({ ...packaged, env: { PINCER_UPDATE_FEED: 'nope' } })).toMatchObject({
      enabled: false,
      reason: 'update feed "nope" is not a URL',
    });
  });
});
