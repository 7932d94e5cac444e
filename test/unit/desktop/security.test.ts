import { describe, expect, it } from 'vitest';
import { isAppUrl } from '../../../src/main/core/desktop/renderer-files.js';
import {
  decidePermission,
  externalLinkPrompt,
  externalUrl,
  guardWebContents,
  HARDENED_WEB_PREFERENCES,
  openExternalSafely,
} from '../../../src/main/core/desktop/web-guard.js';
import { FakeWebContents } from './fake-electron.js';

const APP = 'app://pincer/index.html';

function guarded() {
  const contents = new FakeWebContents();
  const offered: string[] = [];
  guardWebContents(contents, {
    isTrusted: isAppUrl,
    openExternal: (url) => offered.push(url),
  });
  return { contents, offered };
}

describe('web contents guards', () => {
  it('denies every new window; http(s) targets are offered to the browser instead', () => {
    const { contents, offered } = guarded();
    expect(contents.windowOpen('https://example.org/docs')).toBe('deny');
    expect(contents.windowOpen('file:///etc/passwd')).toBe('deny');
    expect(contents.windowOpen('javascript:alert(1)')).toBe('deny');
    expect(offered).toEqual(['https://example.org/docs']);
  });

  it("blocks navigation and redirects away from the app's own page", () => {
    const { contents, offered } = guarded();
    expect(contents.emit('will-navigate', `${APP}#/settings`)).toBe(false);
    expect(contents.emit('will-navigate', 'https://evil.example/')).toBe(true);
    expect(contents.emit('will-redirect', 'file:///home/me/.ssh/id_rsa')).toBe(true);
    expect(offered).toEqual(['https://evil.example/']);
  });

  it('never lets a <webview> attach', () => {
    const { contents } = guarded();
    expect(contents.emit('will-attach-webview')).toBe(true);
  });

  it('denies every permission request', () => {
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'midi']) {
      expect(decidePermission(permission, 'file://')).toBe(false);
    }
  });

  it('pins the hardened webPreferences', () => {
    expect(HARDENED_WEB_PREFERENCES).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      webSecurity: true,
    });
  });
});

describe('shell.openExternal only for http(s), after confirmation', () => {
  it('accepts http and https with a host; refuses every other scheme and credentials in URLs', () => {
    expect(externalUrl('https://example.org/a?b=c')?.href).toBe('https://example.org/a?b=c');
    expect(externalUrl('http://example.org')).not.toBeNull();
    for (const bad of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://server/share',
      'ms-msdt:/id',
      'vscode://file/x',
      'https://user:pass@example.org/',
      'not a url',
      '',
    ]) {
      expect(externalUrl(bad), bad).toBeNull();
    }
  });

  it('opens only after the user says yes', async () => {
    const opened: string[] = [];
    const asked: string[] = [];
    const deps = (answer: boolean) => ({
      confirm: async (url: URL) => {
        asked.push(url.href);
        return answer;
      },
      open: async (url: string) => {
        opened.push(url);
      },
    });
    expect(await openExternalSafely('https://example.org/', deps(false))).toBe('declined');
    expect(opened).toEqual([]);
    expect(await openExternalSafely('https://example.org/', deps(true))).toBe('opened');
    expect(opened).toEqual(['https://example.org/']);
    expect(asked).toEqual(['https://example.org/', 'https://example.org/']);
  });

  it('refuses other schemes without asking, with a reason', async () => {
    const refused: string[] = [];
    let asked = 0;
    const outcome = await openExternalSafely('file:///etc/passwd', {
      confirm: async () => {
        asked++;
        return true;
      },
      open: async () => {
        throw new Error('must not open');
      },
      onRefused: (_raw, why) => refused.push(why),
    });
    expect(outcome).toBe('refused');
    expect(asked).toBe(0);
    expect(refused).toEqual(['only http and https links open outside Pincer']);
  });

  it('the confirmation shows the full URL and warns about plain http', () => {
    const prompt = externalLinkPrompt(new URL('http://example.org/path'));
    expect(prompt.detail).toContain('http://example.org/path');
    expect(prompt.detail).toContain('not encrypted');
  });
});
