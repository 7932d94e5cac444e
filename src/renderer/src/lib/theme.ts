import type { Settings } from '../../../shared/ipc';

/**
 * The page's theme: `system` follows the OS (and its changes) by resolving to `light` or `dark`
 * here, so the stylesheet needs one dark palette, under `html[data-theme="dark"]`.
 */
const prefersDark = window.matchMedia('(prefers-color-scheme: dark)');
let chosen: Settings['theme'] = 'system';

export function applyTheme(theme: Settings['theme']): void {
  chosen = theme;
  const resolved = theme === 'system' ? (prefersDark.matches ? 'dark' : 'light') : theme;
  document.documentElement.dataset.theme = resolved;
}

prefersDark.addEventListener('change', () => applyTheme(chosen));
