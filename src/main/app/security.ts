import { session } from 'electron';
import { RENDERER_CSP } from '../../shared/csp.js';

/** CSP on every response, and no permission (camera, notifications, ...) granted to web content. */
export function installSecurityPolicies(): void {
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
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) =>
    callback(false),
  );
}
