/**
 * The message being written. Enter sends; Alt+Enter or Ctrl+J starts a new line; a paste is one
 * message however many lines it has (bracketed paste where the terminal offers it, and a
 * multi-line chunk counts as a paste where it does not). Left/Right, Home/End and Delete edit at
 * the cursor; Up/Down recall what was sent before; Ctrl+U clears.
 */
import { Box, type Key, Text, useInput } from 'ink';
import { useRef, useState } from 'react';
import { PASTE_END, PASTE_START, useRawInput } from './keys.js';
import {
  clear,
  deleteBack,
  deleteForward,
  down,
  type EditorState,
  emptyEditor,
  end,
  home,
  insert,
  layoutInput,
  left,
  right,
  submit,
  up,
} from './line-editor.js';

/** What pasted text becomes in the buffer: terminals send a pasted line break as \r. */
const pasted = (text: string) => text.replace(/\r\n?/g, '\n');

/** The Delete key (CSI 3 ~, with or without modifiers); Ink names it and Backspace alike. */
const isForwardDelete = (sequence: string) =>
  sequence.startsWith('\x1b[3') && /^.\[3[~;$^]/.test(sequence);

/** Border and padding on each side, and the prompt. */
const CHROME_COLUMNS = 6;

export function InputBox({
  active,
  busy,
  onSubmit,
  width,
  maxLines,
}: {
  active: boolean;
  busy: boolean;
  onSubmit(text: string): void;
  width: number;
  /** Rows the buffer may take (a longer one scrolls with the cursor). */
  maxLines: number;
}) {
  // The editor lives in a ref so a key handled before React re-renders sees every earlier key.
  const editor = useRef<EditorState>(emptyEditor());
  const [shown, setShown] = useState<EditorState>(editor.current);
  const edit = (change: (current: EditorState) => EditorState) => {
    editor.current = change(editor.current);
    setShown(editor.current);
  };
  const pasting = useRef(false);
  // Whether the box takes keys is read from the latest render, not left to Ink's isActive: Ink
  // attaches and detaches a handler only after the frame that changed it is drawn, so a key
  // typed at once would land in the message (an approval just asked) or be lost (just answered).
  const activeNow = useRef(active);
  activeNow.current = active;

  // Before useInput: the paste markers, Ctrl+J and the Delete key are only told apart in the
  // raw sequence.
  const rawHandled = useRef(false);
  const lastRaw = useRef('');
  useRawInput((sequence) => {
    rawHandled.current = false;
    lastRaw.current = sequence;
    if (!active) return;
    if (sequence === PASTE_START || sequence === PASTE_END) {
      pasting.current = sequence === PASTE_START;
      rawHandled.current = true;
    } else if (sequence === '\n') {
      edit((e) => insert(e, '\n'));
      rawHandled.current = true;
    } else if (pasting.current) {
      edit((e) => insert(e, pasted(sequence)));
      rawHandled.current = true;
    }
  });

  useInput((input: string, key: Key) => {
    if (rawHandled.current || !activeNow.current) return;
    if (key.return) {
      if (key.meta) return edit((e) => insert(e, '\n'));
      const { state, message } = submit(editor.current);
      if (message) {
        edit(() => state);
        onSubmit(message);
      }
      return;
    }
    if (key.delete && isForwardDelete(lastRaw.current)) return edit(deleteForward);
    if (key.backspace || key.delete) return edit(deleteBack);
    if (key.leftArrow) return edit(left);
    if (key.rightArrow) return edit(right);
    if (key.home) return edit(home);
    if (key.end) return edit(end);
    if (key.upArrow) return edit(up);
    if (key.downArrow) return edit(down);
    if (key.ctrl && input === 'u') return edit(clear);
    if (key.ctrl || key.meta || key.escape || key.tab) return;
    if (key.pageUp || key.pageDown) return;
    if (input) edit((e) => insert(e, pasted(input)));
  });

  const layout = layoutInput(
    shown.text,
    active ? shown.cursor : -1,
    width - CHROME_COLUMNS,
    maxLines,
  );
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={active ? 'cyan' : 'gray'}
      paddingX={1}
      width={width}
    >
      {layout.above + layout.below > 0 ? (
        <Text dimColor>
          … {layout.above} line{layout.above === 1 ? '' : 's'} above, {layout.below} below
        </Text>
      ) : null}
      {layout.rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of one buffer, by position
        <Text key={index} wrap="truncate-end">
          {row.first ? '› ' : '  '}
          {row.before}
          {row.at === null ? null : <Text inverse>{row.at}</Text>}
          {row.after}
        </Text>
      ))}
      {busy && shown.text === '' ? <Text dimColor>replying… Ctrl+C stops it</Text> : null}
    </Box>
  );
}
