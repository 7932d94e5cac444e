/**
 * The Electron security checklist's runtime handlers, as decisions over plain data: the shell
 * attaches them to every web contents. Web content gets no permissions, cannot navigate away
 * from the app, cannot open windows, cannot attach a <webview>; links to http(s) pages may open
 * in the user's browser after the user confirms.
 */

/** Every permission request from web content is refused (camera, notifications, midi...). */
export function decidePermission(_permission: string, _origin: string): false {
  return false;
}

/** Only http(s) may leave the app, and only to a real host. */
export function externalUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (!url.hostname || url.username || url.password) return null;
  return url;
}

export interface ExternalLinkDeps {
  /** Asks the user; true to open. The shell shows the full URL. */
  confirm: (url: URL) => Promise<boolean>;
  open: (url: string) => Promise<void>;
  onRefused?: (raw: string, why: string) => void;
}

export type ExternalLinkOutcome = 'opened' | 'declined' | 'refused';

/** The only path to shell.openExternal: http(s), then the user's yes. */
export async function openExternalSafely(
  raw: string,
  deps: ExternalLinkDeps,
): Promise<ExternalLinkOutcome> {
  const url = externalUrl(raw);
  if (!url) {
    deps.onRefused?.(raw, 'only http and https links open outside Pincer');
    return 'refused';
  }
  if (!(await deps.confirm(url))) return 'declined';
  await deps.open(url.href);
  return 'opened';
}

export function externalLinkPrompt(url: URL): { message: string; detail: string } {
  return {
    message: `Open this link in your browser?`,
    detail: `${url.href}\n\nHost: ${url.host}${url.protocol === 'http:' ? '\nThis link is not encrypted (http).' : ''}`,
  };
}

/** Minimal event with preventDefault (Electron's Event). */
export interface PreventableEvent {
  preventDefault(): void;
}

/** The part of Electron's WebContents the guards attach to. */
export interface GuardedContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-redirect', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
}

export interface GuardDeps {
  isTrusted: (url: string) => boolean;
  /** Called for a link the page tried to open in a new window or navigate to. */
  openExternal: (url: string) => void;
}

/**
 * No new windows ever: a window.open/target=_blank to http(s) is offered to the user's browser.
 * Navigation stays on the app's own renderer; anything else is stopped (and offered likewise).
 */
export function guardWebContents(contents: GuardedContents, deps: GuardDeps): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (externalUrl(url)) deps.openExternal(url);
    return { action: 'deny' };
  });
  const stayHome = (event: PreventableEvent, url: string) => {
    if (deps.isTrusted(url)) return;
    event.preventDefault();
    if (externalUrl(url)) deps.openExternal(url);
  };
  contents.on('will-navigate', stayHome);
  contents.on('will-redirect', stayHome);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** What the main window's webPreferences must be; the glue spreads it and a test pins it. */
export const HARDENED_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  spellcheck: false,
} as const;
