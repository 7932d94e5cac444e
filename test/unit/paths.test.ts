import { describe, expect, it } from 'vitest';
import { resolveDataDir } from '../../src/main/core/paths.js';

describe('resolveDataDir', () => {
  it('honours PINCER_HOME first, resolved to an absolute path', () => {
    const dir = resolveDataDir({
      platform: 'linux',
      env: { PINCER_HOME: 'rel/dir', XDG_CONFIG_HOME: '/xdg' },
      homedir: '/home/u',
    });
    expect(dir).toBe(`${process.cwd()}/rel/dir`);
  });

  it('ignores a blank PINCER_HOME', () => {
    expect(
      resolveDataDir({ platform: 'linux', env: { PINCER_HOME: '  ' }, homedir: '/home/u' }),
    ).toBe('/home/u/.config/Pincer');
  });

  // Electron's userData is appData + the product name; these are its appData rules.
  it.each([
    ['linux', {}, '/home/u/.config/Pincer'],
    ['linux', { XDG_CONFIG_HOME: '/xdg' }, '/xdg/Pincer'],
    ['darwin', {}, '/home/u/Library/Application Support/Pincer'],
    [
      'win32',
      { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
      'C:\\Users\\u\\AppData\\Roaming\\Pincer',
    ],
  ] as const)('matches Electron userData on %s %j', (platform, env, expected) => {
    expect(resolveDataDir({ platform, env, homedir: '/home/u' })).toBe(expected);
  });
});
