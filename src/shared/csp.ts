/**
 * The renderer's Content Security Policy. Only the app's own scripts and styles run; nothing
 * is framed, no plugin loads, forms post nowhere. `connect-src` allows the loopback gateway's
 * WebSocket so the same renderer can run in a browser against the headless core.
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
