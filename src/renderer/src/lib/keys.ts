/** Keyboard rules: shortcuts never fire while typing; Ctrl on Windows/Linux, Cmd on macOS. */

const MAC = /Mac|iPhone|iPad/.test(navigator.platform);

/** How the app writes its modifier key: ⌘ on macOS (Option+letter types a character there). */
export const MOD = MAC ? '⌘' : 'Ctrl';

export const APPROVE_KEYS = `${MOD}+Enter`;
export const APPROVE_SESSION_KEYS = `${MOD}+Shift+Enter`;
export const DENY_KEYS = `${MOD}+Backspace`;

/** Ctrl (or Cmd on macOS) alone among the modifiers that change meaning. */
export function withMod(event: KeyboardEvent): boolean {
  return (MAC ? event.metaKey : event.ctrlKey) && !event.altKey;
}

/** Focus is where a person types: a shortcut must leave the key to the field. */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(
      target.type,
    );
  }
  return false;
}
