/**
 * A request target as the HTTP surfaces read it, without throwing: `new URL('//', base)` and
 * `decodeURIComponent('%E0%A4%A')` both throw on what a client may send, and a throw there is a
 * 500 at best and, in an event listener, an uncaught exception.
 */

/** The path of a request's target (`request.url`), or undefined when it is not a valid one. */
export function requestPathname(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/** A percent-decoded path segment, or undefined when its encoding is malformed. */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** No Origin (not a browser), or a page served from this machine. */
export function loopbackOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname)
    );
  } catch {
    return false; // "null" and other opaque origins
  }
}
