/**
 * The message being written. Enter sends; Alt+Enter or Ctrl+J starts a new line; a paste is one
 * message however many lines it has (bracketed paste where the terminal offers it, and a
 * multi-line chunk counts as a paste where it does not). Ctrl+U clears.
 */
import { Box, type Key, Text, useInput } from 'ink';
import { useRef, useState } from 'react';
import { PASTE_END, PASTE_START, useRawInput } from './keys.js';
import { safe } from './safe-text.js';

/** What pasted text becomes in the buffer: terminals send a pasted line break as \r. */
const pasted = (text: string) => text.replace(/\r\n?/g, '\n');

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
  maxLines: number;
}) {
  // The buffer lives in a ref so a key handled before React re-renders sees every earlier key.
  const buffer = useRef('');
  const [text, setShown] = useState('');
  const setText = (next: (current: string) => string) => {
    buffer.current = next(buffer.current);
    setShown(buffer.current);
  };
  const pasting = useRef(false);

  // Before useInput: the paste markers and Ctrl+J are only visible in the raw sequence.
  const rawHandled = useRef(false);
  useRawInput((sequence) => {
    rawHandled.current = false;
    if (!active) return;
    if (sequence === PASTE_START || sequence === PASTE_END) {
      pasting.current = sequence === PASTE_START;
      rawHandled.current = true;
    } else if (sequence === '\n') {
      setText((t) => `${t}\n`);
      rawHandled.current = true;
    } else if (pasting.current) {
      setText((t) => t + pasted(sequence));
      rawHandled.current = true;
    }
  });

  useInput(
    (input: string, key: Key) => {
      if (rawHandled.current) return;
      if (key.return) {
        if (key.meta) {
          setText((t) => `${t}\n`);
          return;
        }
        const message = buffer.current.trim();
        if (message) {
          onSubmit(message);
          setText(() => '');
        }
        return;
      }
      if (key.backspace || key.delete) {
        setText((t) => t.slice(0, -1));
        return;
      }
      if (key.ctrl && input === 'u') {
        setText(() => '');
        return;
      }
      if (key.ctrl || key.meta || key.escape || key.tab) return;
      if (key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
      if (key.pageUp || key.pageDown || key.home || key.end) return;
      if (input) setText((t) => t + pasted(input));
    },
    { isActive: active },
  );

  const lines = text.split('\n');
  const shown = lines.slice(-maxLines);
  const hidden = lines.length - shown.length;
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={active ? 'cyan' : 'gray'}
      paddingX={1}
      width={width}
    >
      {hidden > 0 ? <Text dimColor>… {hidden} more lines above</Text> : null}
      {shown.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of one buffer, by position
        <Text key={index} wrap="wrap">
          {index === 0 && hidden === 0 ? '› ' : '  '}
          {safe(line)}
          {index === shown.length - 1 && active ? <Text inverse> </Text> : null}
        </Text>
      ))}
      {busy && text === '' ? <Text dimColor>replying… Ctrl+C stops it</Text> : null}
    </Box>
  );
}
