/**
 * Auto-update is off unless a feed is configured: the desktop settings' `updateFeedUrl`, or
 * PINCER_UPDATE_FEED for builds that bake one in. Only https feeds; unpackaged (dev) runs never
 * update themselves.
 */
export const UPDATE_FEED_ENV = 'PINCER_UPDATE_FEED';

export type UpdatePlan =
  | { enabled: true; feed: { provider: 'generic'; url: string } }
  | { enabled: false; reason: string };

export function planUpdates(options: {
  isPackaged: boolean;
  settingsFeed: string | null;
  env: Record<string, string | undefined>;
}): UpdatePlan {
  if (!options.isPackaged) return { enabled: false, reason: 'not a packaged build' };
  const raw = options.settingsFeed ?? options.env[UPDATE_FEED_ENV]?.trim() ?? '';
  if (!raw) return { enabled: false, reason: 'no update feed configured' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { enabled: false, reason: `update feed "${raw}" is not a URL` };
  }
  if (url.protocol !== 'https:') {
    return { enabled: false, reason: `update feed must be https, got ${url.protocol}` };
  }
  return { enabled: true, feed: { provider: 'generic', url: url.href } };
}
