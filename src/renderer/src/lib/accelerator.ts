/**
 * A key press as an Electron accelerator (`Control+Alt+Space`), for recording the global
 * shortcut. Built from `KeyboardEvent.code` (the physical key), so a layout or Option producing
 * another character does not change what is recorded. Undefined while only modifiers are down,
 * or for a key Electron has no name for.
 */
export interface KeyPress {
  code: string;
  ctrlKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  metaKey: boolean;
}

const NAMED: Record<string, string> = {
  Space: 'Space',
  Enter: 'Enter',
  Tab: 'Tab',
  Backspace: 'Backspace',
  Delete: 'Delete',
  Insert: 'Insert',
  Home: 'Home',
  End: 'End',
  PageUp: 'PageUp',
  PageDown: 'PageDown',
  ArrowUp: 'Up',
  ArrowDown: 'Down',
  ArrowLeft: 'Left',
  ArrowRight: 'Right',
  Minus: '-',
  Equal: '=',
  BracketLeft: '[',
  BracketRight: ']',
  Backslash: '\\',
  Semicolon: ';',
  Quote: "'",
  Comma: ',',
  Period: '.',
  Slash: '/',
  Backquote: '`',
};

function keyName(code: string): string | undefined {
  const letter = /^Key([A-Z])$/.exec(code);
  if (letter) return letter[1];
  const digit = /^(?:Digit|Numpad)([0-9])$/.exec(code);
  if (digit) return digit[1];
  if (/^F([1-9]|1[0-9]|2[0-4])$/.test(code)) return code;
  return NAMED[code];
}

/** `mac`: the Meta key is Command there, Super elsewhere. */
export function acceleratorOf(press: KeyPress, mac: boolean): string | undefined {
  const key = keyName(press.code);
  if (key === undefined) return undefined;
  const parts: string[] = [];
  if (press.ctrlKey) parts.push('Control');
  if (press.metaKey) parts.push(mac ? 'Command' : 'Super');
  if (press.altKey) parts.push('Alt');
  if (press.shiftKey) parts.push('Shift');
  parts.push(key);
  return parts.join('+');
}

/** How an accelerator reads to a person on this platform (⌥ and ⌘ on macOS). */
export function describeAccelerator(accelerator: string, mac: boolean): string {
  if (!mac) return accelerator.replace(/\+/g, ' + ').replace('Control', 'Ctrl');
  const symbols: Record<string, string> = {
    Command: '⌘',
    CommandOrControl: '⌘',
    Control: '⌃',
    Alt: '⌥',
    Option: '⌥',
    Shift: '⇧',
  };
  return accelerator
    .split('+')
    .map((part) => symbols[part] ?? part)
    .join('');
}
