/**
 * The input box's editing, as pure functions over a value: a multi-line buffer with a cursor
 * (moved by code point, so an emoji is one step), and the inputs sent earlier, recalled with
 * Up/Down as a shell does. Up/Down move between the lines of a multi-line buffer first and reach
 * the history from its first or last line. Kept apart from Ink so tests drive it directly.
 */
import { safe } from './safe-text.js';

export interface EditorState {
  text: string;
  /** UTF-16 offset into `text`, always on a code point boundary. */
  cursor: number;
  /** Inputs sent, oldest first. */
  history: readonly string[];
  /** The entry shown: `history.length` is the draft being written. */
  index: number;
  /** What was being written before Up recalled an entry; Down past the newest restores it. */
  draft: string;
}

/** How many sent inputs Up can recall. */
export const HISTORY_SIZE = 100;

export const emptyEditor = (): EditorState => ({
  text: '',
  cursor: 0,
  history: [],
  index: 0,
  draft: '',
});

const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;

function previous(text: string, at: number): number {
  if (at <= 0) return 0;
  return at >= 2 && isLow(text.charCodeAt(at - 1)) && isHigh(text.charCodeAt(at - 2))
    ? at - 2
    : at - 1;
}

function next(text: string, at: number): number {
  if (at >= text.length) return text.length;
  return isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? at + 2 : at + 1;
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number) => {
  const end = text.indexOf('\n', at);
  return end === -1 ? text.length : end;
};

/** `text` put in at the cursor, which then stands after it. */
export function insert(state: EditorState, text: string): EditorState {
  if (!text) return state;
  return {
    ...state,
    text: state.text.slice(0, state.cursor) + text + state.text.slice(state.cursor),
    cursor: state.cursor + text.length,
  };
}

/** Backspace: the code point before the cursor goes. */
export function deleteBack(state: EditorState): EditorState {
  const from = previous(state.text, state.cursor);
  return {
    ...state,
    text: state.text.slice(0, from) + state.text.slice(state.cursor),
    cursor: from,
  };
}

/** Delete: the code point under the cursor goes. */
export function deleteForward(state: EditorState): EditorState {
  const to = next(state.text, state.cursor);
  return { ...state, text: state.text.slice(0, state.cursor) + state.text.slice(to) };
}

export const left = (state: EditorState): EditorState => ({
  ...state,
  cursor: previous(state.text, state.cursor),
});

export const right = (state: EditorState): EditorState => ({
  ...state,
  cursor: next(state.text, state.cursor),
});

/** Home and End act on the cursor's line. */
export const home = (state: EditorState): EditorState => ({
  ...state,
  cursor: lineStart(state.text, state.cursor),
});

export const end = (state: EditorState): EditorState => ({
  ...state,
  cursor: lineEnd(state.text, state.cursor),
});

export const clear = (state: EditorState): EditorState => ({ ...state, text: '', cursor: 0 });

/** The cursor on the line above or below, at the same column where that line is long enough. */
function verticalMove(state: EditorState, direction: -1 | 1): EditorState | undefined {
  const { text, cursor } = state;
  const start = lineStart(text, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return undefined;
    const above = lineStart(text, start - 1);
    return { ...state, cursor: snap(text, Math.min(above + column, start - 1)) };
  }
  const end = lineEnd(text, cursor);
  if (end === text.length) return undefined;
  const below = end + 1;
  return { ...state, cursor: snap(text, Math.min(below + column, lineEnd(text, below))) };
}

/** An offset moved back off the middle of a surrogate pair. */
const snap = (text: string, at: number) =>
  isLow(text.charCodeAt(at)) && isHigh(text.charCodeAt(at - 1)) ? at - 1 : at;

function recall(state: EditorState, index: number): EditorState {
  const text = index === state.history.length ? state.draft : (state.history[index] ?? '');
  return { ...state, index, text, cursor: text.length };
}

/** Up: the line above, else the input sent before the one shown. */
export function up(state: EditorState): EditorState {
  const moved = verticalMove(state, -1);
  if (moved) return moved;
  if (state.index === 0) return state;
  const draft = state.index === state.history.length ? state.text : state.draft;
  return recall({ ...state, draft }, state.index - 1);
}

/** Down: the line below, else the input sent after the one shown, then the draft again. */
export function down(state: EditorState): EditorState {
  const moved = verticalMove(state, 1);
  if (moved) return moved;
  if (state.index >= state.history.length) return state;
  return recall(state, state.index + 1);
}

/** Enter: the message to send (none when blank), remembered for Up, and an empty buffer. */
export function submit(state: EditorState): { state: EditorState; message: string | null } {
  const message = state.text.trim();
  if (!message) return { state, message: null };
  const history =
    state.history.at(-1) === message
      ? state.history
      : [...state.history, message].slice(-HISTORY_SIZE);
  return {
    state: { text: '', cursor: 0, history, index: history.length, draft: '' },
    message,
  };
}

/** One row of the box as drawn: the text before the cursor, the cell under it, the rest. */
export interface InputRow {
  /** The first row of the buffer (it gets the prompt). */
  first: boolean;
  before: string;
  /** The cell the cursor is on (a space at the end of a line); null on other rows. */
  at: string | null;
  after: string;
}

export interface InputLayout {
  rows: InputRow[];
  /** Rows of the buffer not shown, above and below the ones that are. */
  above: number;
  below: number;
}

/**
 * The buffer wrapped to `columns` cells and cut to `maxRows` rows around the cursor (one row
 * then says what is hidden). Each character is drawn as `safe` makes it, so a pasted escape
 * shows as ␛ and the cursor still lands on the character it stands for. Cells are counted as
 * code points: wide (CJK) characters may wrap a little early in the terminal.
 */
export function layoutInput(
  text: string,
  cursor: number,
  columns: number,
  maxRows: number,
): InputLayout {
  const width = Math.max(1, columns);
  type Cell = { text: string; cursor: boolean };
  const visual: Array<{ first: boolean; cells: Cell[]; used: number }> = [];
  let cursorRow = 0;
  let offset = 0;
  text.split('\n').forEach((line, lineIndex) => {
    let row = { first: lineIndex === 0, cells: [] as Cell[], used: 0 };
    visual.push(row);
    const place = (cell: Cell, cells: number) => {
      if (row.used + cells > width && row.cells.length > 0) {
        row = { first: false, cells: [], used: 0 };
        visual.push(row);
      }
      row.cells.push(cell);
      row.used += cells;
      if (cell.cursor) cursorRow = visual.length - 1;
    };
    for (const char of line) {
      const shown = safe(char);
      place({ text: shown, cursor: offset === cursor }, [...shown].length);
      offset += char.length;
    }
    if (offset === cursor) place({ text: ' ', cursor: true }, 1);
    offset += 1; // the newline
  });
  const all: InputRow[] = visual.map(({ first, cells }) => {
    const at = cells.findIndex((cell) => cell.cursor);
    const join = (part: Cell[]) => part.map((cell) => cell.text).join('');
    return at === -1
      ? { first, before: join(cells), at: null, after: '' }
      : {
          first,
          before: join(cells.slice(0, at)),
          at: cells[at]?.text ?? ' ',
          after: join(cells.slice(at + 1)),
        };
  });
  const limit = Math.max(1, maxRows);
  if (all.length <= limit) return { rows: all, above: 0, below: 0 };
  // One row goes to saying what is hidden; the cursor's row stays in view.
  const shown = Math.max(1, limit - 1);
  const start = Math.min(Math.max(0, cursorRow - shown + 1), all.length - shown);
  return {
    rows: all.slice(start, start + shown),
    above: start,
    below: all.length - start - shown,
  };
}
