/**
 * The global shortcut that summons the window. Another application may own the accelerator:
 * registration then fails, and the shell says so instead of silently having no shortcut.
 */

/** The part of Electron's globalShortcut this needs. */
export interface ShortcutRegistry {
  register(accelerator: string, callback: () => void): boolean;
  unregister(accelerator: string): void;
}

export type ShortcutResult =
  | { registered: true; accelerator: string }
  | { registered: false; accelerator: string | null; reason: string };

const MODIFIERS = new Set([
  'command',
  'cmd',
  'control',
  'ctrl',
  'commandorcontrol',
  'cmdorctrl',
  'alt',
  'option',
  'altgr',
  'shift',
  'super',
  'meta',
]);

/** Electron accelerators: modifiers joined by '+', one key last; a global one needs a modifier. */
export function checkAccelerator(accelerator: string): string | null {
  const parts = accelerator.split('+');
  const key = parts.at(-1) ?? '';
  const modifiers = parts.slice(0, -1);
  if (!key || MODIFIERS.has(key.toLowerCase()))
    return `"${accelerator}" has no key after its modifiers`;
  if (modifiers.length === 0) return `"${accelerator}" needs a modifier (e.g. CommandOrControl+)`;
  const unknown = modifiers.find((part) => !MODIFIERS.has(part.toLowerCase()));
  if (unknown !== undefined) return `"${accelerator}": unknown modifier "${unknown}"`;
  return null;
}

export function registerSummonShortcut(
  registry: ShortcutRegistry,
  accelerator: string | null,
  summon: () => void,
): ShortcutResult {
  if (accelerator === null) {
    return { registered: false, accelerator: null, reason: 'turned off in settings' };
  }
  const problem = checkAccelerator(accelerator);
  if (problem) return { registered: false, accelerator, reason: problem };
  let ok: boolean;
  try {
    ok = registry.register(accelerator, summon);
  } catch (error) {
    return { registered: false, accelerator, reason: (error as Error).message };
  }
  return ok
    ? { registered: true, accelerator }
    : { registered: false, accelerator, reason: `${accelerator} is taken by another application` };
}
