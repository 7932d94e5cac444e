/**
 * Keys of the dashboard. Ink's useInput reports function keys with no name, so they are read
 * from the raw sequences Ink's input parser emits; each view also has a Ctrl equivalent for
 * terminals (and multiplexers) that keep F-keys to themselves.
 */
import { useStdin } from 'ink';
import { useLayoutEffect, useRef } from 'react';

export type View =
  | 'chat'
  | 'help'
  | 'agents'
  | 'tools'
  | 'memory'
  | 'logs'
  | 'approvals'
  | 'config';

/** F-key and Ctrl equivalent of each view, in the order the key bar shows them. */
export const VIEW_KEYS: ReadonlyArray<{ view: View; fkey: string; ctrl: string; label: string }> = [
  { view: 'help', fkey: 'F1', ctrl: 'g', label: 'Help' },
  { view: 'agents', fkey: 'F2', ctrl: 'r', label: 'Agents' },
  { view: 'tools', fkey: 'F3', ctrl: 't', label: 'Tools' },
  { view: 'memory', fkey: 'F4', ctrl: 'k', label: 'Memory' },
  { view: 'logs', fkey: 'F5', ctrl: 'l', label: 'Logs' },
  { view: 'approvals', fkey: 'F6', ctrl: 'a', label: 'Approvals' },
  { view: 'config', fkey: 'F10', ctrl: 'p', label: 'Config' },
];

// xterm/VT220 (CSI n ~), xterm SS3 (F1-F4) and the Linux console (CSI [ A-E).
const FKEY_SEQUENCES: Record<string, string> = {
  '\x1bOP': 'F1',
  '\x1b[11~': 'F1',
  '\x1b[[A': 'F1',
  '\x1bOQ': 'F2',
  '\x1b[12~': 'F2',
  '\x1b[[B': 'F2',
  '\x1bOR': 'F3',
  '\x1b[13~': 'F3',
  '\x1b[[C': 'F3',
  '\x1bOS': 'F4',
  '\x1b[14~': 'F4',
  '\x1b[[D': 'F4',
  '\x1b[15~': 'F5',
  '\x1b[[E': 'F5',
  '\x1b[17~': 'F6',
  '\x1b[21~': 'F10',
};

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/**
 * A raw sequence as a one-line text field reads it: Enter, Backspace, Esc, typed or pasted text
 * (line breaks as spaces, other controls dropped), or something else (arrows, F-keys).
 */
export type FieldKey =
  | { kind: 'enter' }
  | { kind: 'backspace' }
  | { kind: 'escape' }
  | { kind: 'text'; text: string }
  | { kind: 'other' };

export function fieldKey(sequence: string): FieldKey {
  if (sequence === '\r' || sequence === '\n') return { kind: 'enter' };
  if (sequence === '\x7f' || sequence === '\b') return { kind: 'backspace' };
  if (sequence === '\x1b') return { kind: 'escape' };
  if (sequence.startsWith('\x1b')) return { kind: 'other' };
  const text = [...sequence.replace(/[\r\n]+/g, ' ')]
    .filter((c) => c >= ' ' && c !== '\x7f')
    .join('');
  return text ? { kind: 'text', text } : { kind: 'other' };
}

export function viewForKey(raw: string): View | undefined {
  const fkey = FKEY_SEQUENCES[raw];
  return fkey ? VIEW_KEYS.find((k) => k.fkey === fkey)?.view : undefined;
}

export function viewForCtrl(letter: string): View | undefined {
  return VIEW_KEYS.find((k) => k.ctrl === letter)?.view;
}

/**
 * Each raw sequence Ink's parser emits (one keypress, or a whole paste chunk). Registered before
 * a component's useInput, so a listener here sees a sequence before that component's handler.
 * Attached in the commit that first draws the component (a layout effect, where Ink's useInput
 * waits for a passive one): a key pressed as soon as it is on screen reaches it.
 */
export function useRawInput(handler: (sequence: string) => void): void {
  const { internal_eventEmitter: emitter, setRawMode, isRawModeSupported } = useStdin();
  const current = useRef(handler);
  current.current = handler;
  // Keys arrive one by one only in raw mode (Ink counts who asks for it, as useInput does).
  useLayoutEffect(() => {
    if (!isRawModeSupported) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [isRawModeSupported, setRawMode]);
  useLayoutEffect(() => {
    const listener = (sequence: string) => current.current(sequence);
    emitter?.on('input', listener);
    return () => {
      emitter?.removeListener('input', listener);
    };
  }, [emitter]);
}
