/** The dashboard's input editing: the cursor, history recall, and the box's rows around the cursor. */
import { describe, expect, it } from 'vitest';
import {
  deleteBack,
  deleteForward,
  down,
  type EditorState,
  emptyEditor,
  end,
  HISTORY_SIZE,
  home,
  insert,
  layoutInput,
  left,
  right,
  submit,
  up,
} from '../../../src/main/cli/tui/line-editor.js';

const typed = (text: string, state = emptyEditor()) => insert(state, text);
const apply = (state: EditorState, ...steps: Array<(s: EditorState) => EditorState>) =>
  steps.reduce((s, step) => step(s), state);

function sent(...messages: string[]): EditorState {
  return messages.reduce((state, message) => submit(typed(message, state)).state, emptyEditor());
}

describe('line editor', () => {
  it('inserts and deletes at the cursor, moving by code point', () => {
    let state = apply(typed('hllo'), home, right);
    state = insert(state, 'e');
    expect(state).toMatchObject({ text: 'hello', cursor: 2 });
    state = apply(state, end, left, deleteForward);
    expect(state).toMatchObject({ text: 'hell', cursor: 4 });
    state = apply(state, left, deleteBack);
    expect(state).toMatchObject({ text: 'hel', cursor: 2 });
    // An emoji is two UTF-16 units and one step.
    state = apply(typed('a😀b'), left, left);
    expect(state.cursor).toBe(1);
    expect(deleteForward(state).text).toBe('ab');
    expect(deleteBack(right(state)).text).toBe('ab');
    // At the ends nothing moves or goes.
    expect(apply(typed('x'), right, deleteForward)).toMatchObject({ text: 'x', cursor: 1 });
    expect(apply(typed('x'), home, left, deleteBack)).toMatchObject({ text: 'x', cursor: 0 });
  });

  it('keeps Home and End to the line, and Up/Down move between lines first', () => {
    const state = typed('first line\nsecond\nthird line');
    expect(home(state).cursor).toBe('first line\nsecond\n'.length);
    const second = up(state); // from column 10 of "third line" to the end of "second"
    expect(second.cursor).toBe('first line\nsecond'.length);
    expect(home(second).cursor).toBe('first line\n'.length);
    expect(end(home(second)).cursor).toBe('first line\nsecond'.length);
    const first = up(second);
    expect(first.cursor).toBe(6);
    expect(down(down(first)).cursor).toBe('first line\nsecond\nthird '.length);
  });

  it('recalls sent inputs with Up and Down, keeping the draft being written', () => {
    expect(submit(typed('  ')).message).toBeNull(); // nothing to send
    let state = typed('draft', sent('one', 'two', 'two'));
    expect(state.history).toEqual(['one', 'two']); // a repeat kept once
    state = up(state);
    expect(state).toMatchObject({ text: 'two', cursor: 3 });
    state = up(state);
    expect(state.text).toBe('one');
    expect(up(state).text).toBe('one'); // the oldest stays
    state = down(down(state));
    expect(state).toMatchObject({ text: 'draft', cursor: 5 });
    expect(down(state).text).toBe('draft');
    // A recalled entry edited and sent is a new entry; the one recalled is unchanged.
    const edited = submit(insert(up(state), '!'));
    expect(edited.message).toBe('two!');
    expect(edited.state.history).toEqual(['one', 'two', 'two!']);
    expect(edited.state).toMatchObject({ text: '', cursor: 0, index: 3 });
  });

  it('recalls a multi-line input whole, moving through its lines before older ones', () => {
    let state = up(sent('older', 'line one\nline two'));
    expect(state.text).toBe('line one\nline two');
    state = up(state);
    expect(state.text).toBe('line one\nline two'); // still in it: on its first line now
    expect(up(state).text).toBe('older');
  });

  it('keeps at most HISTORY_SIZE inputs', () => {
    const many = Array.from({ length: HISTORY_SIZE + 5 }, (_, i) => `m${i}`);
    const state = sent(...many);
    expect(state.history.length).toBe(HISTORY_SIZE);
    expect(state.history[0]).toBe('m5');
  });
});

describe('input layout', () => {
  it('marks the cell under the cursor, a space at the end of a line', () => {
    expect(layoutInput('hello', 1, 20, 4).rows).toEqual([
      { first: true, before: 'h', at: 'e', after: 'llo' },
    ]);
    expect(layoutInput('ab\ncd', 2, 20, 4).rows).toEqual([
      { first: true, before: 'ab', at: ' ', after: '' },
      { first: false, before: 'cd', at: null, after: '' },
    ]);
    expect(layoutInput('', 0, 20, 4).rows).toEqual([
      { first: true, before: '', at: ' ', after: '' },
    ]);
    // Inactive: no cursor at all.
    expect(layoutInput('ab', -1, 20, 4).rows[0]?.at).toBeNull();
  });

  it('wraps long lines to the width and keeps the cursor row in view', () => {
    const text = 'abcdefghij'.repeat(3); // 30 cells at 8 a row: 4 rows
    const atEnd = layoutInput(text, text.length, 8, 3);
    expect(atEnd).toMatchObject({ above: 2, below: 0 });
    expect(atEnd.rows.map((r) => r.before + (r.at ?? '') + r.after)).toEqual([
      'ghijabcd',
      'efghij ',
    ]);
    const atStart = layoutInput(text, 0, 8, 3);
    expect(atStart).toMatchObject({ above: 0, below: 2 });
    expect(atStart.rows[0]).toEqual({ first: true, before: '', at: 'a', after: 'bcdefgh' });
  });

  it('shows control characters as visible pictures, the cursor on the one it stands for', () => {
    const { rows } = layoutInput('a\x1b[2Jb', 1, 40, 2);
    expect(rows).toEqual([{ first: true, before: 'a', at: '␛', after: '[2Jb' }]);
    expect(JSON.stringify(rows)).not.toContain('\x1b');
  });
});
