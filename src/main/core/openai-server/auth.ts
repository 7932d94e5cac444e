/** Bearer keys: generated with enough entropy, compared in constant time, never logged. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export function generateApiKey(): string {
  return `pincer-${randomBytes(24).toString('base64url')}`;
}

/**
 * Whether `header` carries `Bearer <key>`. Both sides are hashed first, so the comparison takes
 * the same time whatever the length or content of the guess.
 */
export function bearerMatches(header: string | undefined, key: string): boolean {
  const presented = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(key)) && presented.length > 0;
}

/** 127.0.0.0/8, ::1 and localhost: addresses nothing off this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}
