import { app, session } from 'electron';
import { RENDERER_CSP } from '../../shared/csp.js';
import { decidePermission, guardWebContents } from '../core/desktop/index.js';
import { isTrustedRendererUrl } from './renderer-origin.js';

/**
 * The security checklist's process-wide part: CSP on every response, no permission for web
 * content, and every web contents ever created (windows, devtools, anything) guarded against
 * navigation, new windows and <webview>.
 */
export function installSecurityPolicies(options: { openExternal: (url: string) => void }): void {
  const devServer = Boolean(process.env.ELECTRON_RENDERER_URL);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    // Vite's dev server injects an inline React-refresh preamble; only the dev build allows it.
    const csp = devServer
      ? RENDERER_CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
      : RENDERER_CSP;
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] },
    });
  });
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(decidePermission(permission, details.requestingUrl ?? '')),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission, origin) =>
    decidePermission(permission, origin),
  );
  app.on('web-contents-created', (_event, contents) =>
    guardWebContents(contents, {
      isTrusted: isTrustedRendererUrl,
      openExternal: options.openExternal,
    }),
  );
}
